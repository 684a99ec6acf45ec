#pragma once
// Lesson 09's tables (a program above the lessons): what one GPU can do at most, and the least time
// a pass of 09.1's costs can take on it.
#include <string>

#include "fast_training.hpp"  // PassCost (09.1)

namespace fast_training {

// What one GPU can do at most: FP32 multiply-add throughput and DRAM bandwidth.
struct Ceilings {
  std::string source;          // where the numbers come from
  double flops_per_s = 0;      // FP32, 2 per multiply-add
  double bytes_per_s = 0;      // DRAM
  double ridge() const { return flops_per_s / bytes_per_s; }  // flops per byte where both limits meet
};
// From the device's attributes (SMs x FP32 lanes per SM x 2 x clock; memory clock x bus width x 2).
Ceilings device_ceilings(int device = 0);
// The fastest the pass could run on `c`: max(flops / peak, bytes / bandwidth), in seconds.
double roofline_seconds(const PassCost& cost, const Ceilings& c);

}  // namespace fast_training
