#pragma once
// Lesson 03's benchmark table: every kernel of first_kernels.hpp at several sizes, each
// first checked against a CPU version, then timed on the GPU (CUDA events) and on the CPU
// (host clock), and once more with its host<->device copies.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lesson03 {

struct TableOptions {
  std::vector<size_t> sizes;  // element counts, each a multiple of 32768 (bias add's shape)
  int gpu_repeats = 20;       // CUDA-event timings per kernel (median reported)
  int cpu_repeats = 3;        // host-clock timings of the CPU loop and of the copies
  double device_copy_gb_per_s = 0;  // the ceiling: measured cudaMemcpy device -> device
  uint64_t seed = 3;
};

// Validates every kernel at every size (throws course::Error naming the step when one
// disagrees with the CPU), then prints one table row per kernel and size.
void run_kernel_table(const TableOptions& options);

}  // namespace lesson03
