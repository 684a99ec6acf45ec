#pragma once
// Lesson 07's CPU part: your im2col_cpu / col2im_cpu (step 07.1) checked as a convolution
// against lesson 01's loops in double, then timed with the host clock at the benchmark's shapes.
// It is all that runs without a GPU (or with --cpu-only); a stub stops it with its step-07.1 message.
#include <string>
#include <vector>

#include "host_layers.hpp"

namespace lesson07 {

struct NamedConv {
  std::string name;
  host_layers::ConvShape s;
};

// Throws course::Error when im2col_cpu + GEMM or GEMM + col2im_cpu disagree with lesson 01.
void run_cpu_part(const std::vector<NamedConv>& layers, int repeats);

}  // namespace lesson07
