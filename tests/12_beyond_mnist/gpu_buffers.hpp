#pragma once
// Shared by lesson 12's GPU tests: device buffers with a guard zone of 0xFF bytes after the data,
// so a kernel that writes past n is caught even without compute-sanitizer, and outputs that start
// as NaN, so an element a kernel never writes is caught.
#include <cstddef>
#include <cstring>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "first_kernels.hpp"

namespace beyond_mnist_test {

// The CPU test sizes plus 3 * kGridCapacity + 5: the launchers cap the grid at kGridCapacity
// threads (lesson 03), so each thread must handle 3 or 4 elements.
inline std::vector<size_t> gpu_sizes() { return {1, 3, 17, 1000, 4099, 3 * first_kernels::kGridCapacity + 5}; }

constexpr size_t kGuard = 31;  // elements after the data that no kernel may touch

// n + kGuard floats, every byte 0xFF (NaN): an output the kernel must fill.
inline course::DeviceBuffer<float> poisoned(size_t n) {
  course::DeviceBuffer<float> buf(n + kGuard);
  buf.poison();
  return buf;
}

// `values` followed by the 0xFF guard: an input, or a buffer updated in place.
inline course::DeviceBuffer<float> guarded(const std::vector<float>& values) {
  course::DeviceBuffer<float> buf = poisoned(values.size());
  buf.upload(values);
  return buf;
}

// Waits for the GPU, checks that the guard still holds its 0xFF bytes, returns the first n.
inline std::vector<float> download_checked(const course::DeviceBuffer<float>& buf, size_t n) {
  CUDA_CHECK(cudaDeviceSynchronize());  // errors inside a kernel surface here
  std::vector<float> all = buf.to_host();
  REQUIRE(all.size() == n + kGuard);
  size_t touched = 0;
  for (size_t i = n; i < all.size(); ++i) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &all[i], sizeof(float));
    for (unsigned char b : bytes) touched += b != 0xFF ? 1 : 0;
  }
  INFO("the kernel wrote into the " << kGuard << " elements after the last one (n = " << n << ")");
  REQUIRE(touched == 0);
  all.resize(n);
  return all;
}

// Whether every byte of the first n elements is still 0xFF (nothing was written there).
inline bool still_poisoned(const course::DeviceBuffer<float>& buf, size_t n) {
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> all = buf.to_host();
  for (size_t i = 0; i < n; ++i) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &all[i], sizeof(float));
    for (unsigned char b : bytes)
      if (b != 0xFF) return false;
  }
  return true;
}

}  // namespace beyond_mnist_test
