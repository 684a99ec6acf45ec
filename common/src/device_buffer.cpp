#include "course/device_buffer.hpp"

#include <cstdio>
#include <string>

#include "course/device_info.hpp"

namespace course {

namespace {
// "512 bytes", "3.8 MiB", "1048576.0 GiB": small sizes must not print as "0.0 MiB".
std::string size_text(size_t bytes) {
  char text[48];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024 * 1024)
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  else if (b < 1024.0 * 1024.0 * 1024.0)
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%.1f GiB", b / (1024.0 * 1024.0 * 1024.0));
  return text;
}
}  // namespace

void* device_allocate(size_t bytes) {
  void* ptr = nullptr;
  cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the (non-sticky) error so later calls work
    size_t free_bytes = 0, total_bytes = 0;
    std::string state;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      state = " (" + size_text(free_bytes) + " free of " + size_text(total_bytes) + ")";
    throw CudaError(err, "out of device memory: asked for " + size_text(bytes) + state);
  }
  if (err != cudaSuccess && !gpu_available()) {
    cudaGetLastError();
    throw CudaError(err, "cannot allocate " + size_text(bytes) + " of device memory: no usable CUDA GPU (" +
                             query_devices().reason + ")");
  }
  if (err != cudaSuccess)
    throw_cuda_error(err, ("cudaMalloc of " + size_text(bytes)).c_str(), __FILE__, __LINE__);
  return ptr;
}

void device_free(void* ptr) noexcept {
  if (ptr) cudaFree(ptr);  // errors ignored: this runs in destructors
}

}  // namespace course
