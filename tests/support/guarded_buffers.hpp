#pragma once
// For the GPU tests of any lesson that launches on lesson 03's grid: device buffers with a guard
// zone of 0xFF bytes after the data, so a kernel that writes past n is caught even without
// compute-sanitizer, and outputs that start as NaN (every byte 0xFF), so an element a kernel never
// writes is caught. Link first_kernels_ref (or a library that does).
#include <cstddef>
#include <cstring>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "first_kernels.hpp"

namespace course::test {

// 1, 3, 17: smaller than a warp and odd; 1000, 4099: not multiples of any block size; and
// 3 * kGridCapacity + 5: lesson 03's launchers cap the grid at kGridCapacity threads, so each
// thread must handle 3 or 4 elements.
inline std::vector<size_t> gpu_sizes() { return {1, 3, 17, 1000, 4099, 3 * first_kernels::kGridCapacity + 5}; }

constexpr size_t kGuard = 31;  // elements after the data that no kernel may touch

// Whether every byte of `value` is 0xFF: the poison, for float a NaN, for int -1.
template <typename T>
bool is_poison(const T& value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (unsigned char b : bytes)
    if (b != 0xFF) return false;
  return true;
}

// n + kGuard elements, every byte 0xFF: an output the kernel must fill.
template <typename T = float>
course::DeviceBuffer<T> poisoned(size_t n) {
  course::DeviceBuffer<T> buf(n + kGuard);
  buf.poison();
  return buf;
}

// `values` followed by the 0xFF guard: an input, or a buffer updated in place.
template <typename T>
course::DeviceBuffer<T> guarded(const std::vector<T>& values) {
  course::DeviceBuffer<T> buf = poisoned<T>(values.size());
  buf.upload(values);
  return buf;
}

// Waits for the GPU, checks that the guard still holds its 0xFF bytes, returns the first n.
template <typename T>
std::vector<T> download_checked(const course::DeviceBuffer<T>& buf, size_t n) {
  CUDA_CHECK(cudaDeviceSynchronize());  // errors inside a kernel surface here
  std::vector<T> all = buf.to_host();
  REQUIRE(all.size() == n + kGuard);
  size_t touched = 0;
  for (size_t i = n; i < all.size(); ++i) touched += is_poison(all[i]) ? 0 : 1;
  INFO("the kernel wrote into the " << kGuard << " elements after the last one (n = " << n << ")");
  REQUIRE(touched == 0);
  all.resize(n);
  return all;
}

// Whether every byte of the first n elements is still 0xFF (nothing was written there).
template <typename T>
bool still_poisoned(const course::DeviceBuffer<T>& buf, size_t n) {
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> all = buf.to_host();
  for (size_t i = 0; i < n; ++i)
    if (!is_poison(all[i])) return false;
  return true;
}

}  // namespace course::test
