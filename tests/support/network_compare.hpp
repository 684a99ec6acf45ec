#pragma once
// Two networks of the course compared after the same pass (the GPU tests of lessons 12 and 15): their
// outputs value by value, their gradients tensor by tensor. `reference` names the side taken as right
// in the messages ("lesson 08's layers", "the host network").
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course_test.hpp"

namespace course::test {

// The first n floats of a device array as doubles, after everything on the device is done.
inline std::vector<double> download_doubles(const float* device, size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return std::vector<double>(host.begin(), host.end());
}

// Every got[k] finite and within atol + rtol * |want[k]|.
inline void expect_values_close(const std::string& what, const std::vector<double>& got,
                                const std::vector<double>& want, double atol, double rtol,
                                const std::string& reference) {
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    INFO(what << "[" << k << "]: got " << got[k] << ", " << reference << " give " << want[k]);
    REQUIRE(std::isfinite(got[k]));
    REQUIRE(std::fabs(got[k] - want[k]) <= atol + rtol * std::fabs(want[k]));
  }
}

// Every entry finite, and |got - want| / |want| (Euclidean norms) at most `normwise`. With rms > 0, a
// tensor whose root-mean-square difference is at most rms passes too (a gradient that is 0 up to
// rounding on both sides); with rms 0, want must not be all zeros.
inline void expect_tensor_close(const std::string& what, const std::vector<double>& got,
                                const std::vector<double>& want, double normwise, const std::string& reference,
                                double rms = 0) {
  REQUIRE(got.size() == want.size());
  double diff = 0, norm = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    INFO(what << "[" << k << "] is " << got[k]);
    REQUIRE(std::isfinite(got[k]));
    diff += (got[k] - want[k]) * (got[k] - want[k]), norm += want[k] * want[k];
  }
  const double rms_diff = want.empty() ? 0 : std::sqrt(diff / double(want.size()));
  INFO(what << ": |got - " << reference << "'s| / |" << reference << "'s| = " << std::sqrt(diff / norm)
            << ", root mean square difference " << rms_diff);
  if (rms == 0) REQUIRE(norm > 0);
  CHECK((std::sqrt(diff) <= normwise * std::sqrt(norm) || rms_diff <= rms));
}

}  // namespace course::test
