#pragma once
// The first n floats of a device array, copied to the host: how the GPU tests read a result that
// lives in a network's or a layer's own buffer (a DeviceBuffer has download_checked instead).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "course/cuda_check.hpp"

namespace course::test {

inline std::vector<float> download(const float* device, size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace course::test
