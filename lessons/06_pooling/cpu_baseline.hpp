#pragma once
// Lesson 06's CPU baseline: lesson 01's max-pool loops (forward with argmax, backward from the
// argmax), checked against the definition, then timed with the host clock at the benchmark's
// shapes. It is all that runs without a GPU (or with --cpu-only).
#include <cstdint>
#include <string>
#include <vector>

#include "host_layers.hpp"

namespace lesson06 {

struct NamedPool {
  std::string name;
  host_layers::PoolShape s;
};

// Prints ms and GB/s per shape (the bytes of the GPU table's argmax row); throws course::Error
// when a loop's output is wrong.
void run_cpu_baseline(const std::vector<NamedPool>& problems, int repeats, uint64_t seed);

}  // namespace lesson06
