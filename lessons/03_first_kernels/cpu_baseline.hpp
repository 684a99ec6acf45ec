#pragma once
// Lesson 03's CPU part, the baseline the GPU tables compare with: host memory copy bandwidth
// (std::memcpy) and lesson 01's ReLU loops, checked, then timed with the host clock. It is all
// that runs without a GPU (or with --cpu-only).
#include <cstddef>
#include <vector>

namespace lesson03 {

struct CpuBaselineOptions {
  std::vector<size_t> sizes;  // element counts of the ReLU rows
  size_t copy_bytes = 0;      // bytes per std::memcpy
  int repeats = 3;            // host-clock repeats (the median is reported)
};

// Prints the copy bandwidth, then one row per ReLU loop and size; throws course::Error when a
// loop's output is wrong.
void run_cpu_baseline(const CpuBaselineOptions& options);

}  // namespace lesson03
