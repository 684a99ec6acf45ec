#pragma once
// Shared by lesson 03's tests: the sizes every 1-D kernel is tested at, and device buffers
// with a guard zone after the data, so a kernel that writes past n is caught even
// without compute-sanitizer.
#include <cmath>
#include <cstddef>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "first_kernels.hpp"

namespace first_kernels_test {

// 1, 3, 17, 1000: smaller than one block, odd, not multiples of the 256-thread block.
// 2^20 + 7: four passes of the grid-stride loop plus a ragged tail.
// 3 * kGridCapacity + 5: the launchers cap the grid at kMaxBlocks blocks of kThreadsPerBlock
// threads (first_kernels.hpp), so each thread must handle 3 or 4 elements.
constexpr size_t kPastGrid = 3 * first_kernels::kGridCapacity + 5;
static_assert(kPastGrid > first_kernels::kGridCapacity, "must exceed one pass of the grid");
inline std::vector<size_t> test_sizes() { return {1, 3, 17, 1000, (size_t(1) << 20) + 7, kPastGrid}; }

constexpr size_t kGuard = 37;  // elements after the data that no kernel may touch

// A device buffer of n + kGuard floats, all NaN: an output the kernel must fill (the first n).
inline course::DeviceBuffer<float> poisoned_output(size_t n) {
  course::DeviceBuffer<float> buf(n + kGuard);
  buf.poison();
  return buf;
}

// A device buffer holding `values` followed by kGuard copies of `guard`: an in-place argument.
inline course::DeviceBuffer<float> guarded_copy(const std::vector<float>& values, float guard) {
  std::vector<float> padded(values);
  padded.resize(values.size() + kGuard, guard);
  return course::DeviceBuffer<float>(padded);
}

// Waits for the GPU, checks the guard zone is untouched (NaN stays NaN, a value stays that
// value, bit for bit), and returns the first n elements.
inline std::vector<float> download_checked(const course::DeviceBuffer<float>& buf, size_t n, float guard) {
  CUDA_CHECK(cudaDeviceSynchronize());  // errors inside the kernel surface here
  std::vector<float> all = buf.to_host();
  REQUIRE(all.size() == n + kGuard);
  size_t touched = 0;
  for (size_t i = n; i < all.size(); ++i) {
    const bool same = std::isnan(guard) ? std::isnan(all[i]) : all[i] == guard;
    touched += same ? 0 : 1;
  }
  INFO("the kernel wrote " << touched << " of the " << kGuard << " elements after the last one (n = " << n << ")");
  REQUIRE(touched == 0);
  all.resize(n);
  return all;
}

}  // namespace first_kernels_test
