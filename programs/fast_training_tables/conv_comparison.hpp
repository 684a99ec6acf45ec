#pragma once
// Lesson 09's tables (a program above the lessons): steps 09.2-09.4 checked and timed beside lesson 07's
// im2col + GEMM, lesson 05's direct kernels and cuDNN, pass by pass.
#include <string>

#include "fast_training.hpp"
#include "roofline.hpp"

namespace lesson09 {

struct NamedConv {
  std::string name;
  host_layers::ConvShape s;
};

// Validates the implicit GEMMs against lesson 01 in double (two images) and against im2col + GEMM
// on the whole batch (throws course::Error naming the first that differs), then prints a table
// row per pass. With `ceilings`, each pass's least time on the roofline too.
void compare_conv(const NamedConv& layer, const fast_training::Ceilings& ceilings, int warmup, int repeats);

}  // namespace lesson09
