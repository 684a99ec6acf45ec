#pragma once
// Lesson 09's tables (a program above the lessons): model A's training step on a roofline, pass by pass,
// from step 09.1's counts.
#include "fast_training.hpp"
#include "roofline.hpp"

namespace lesson09 {

// Prints one row per pass of every layer of `spec` (and the loss) for `batch` examples: GFLOP,
// MB, flops per byte, which ceiling limits it and, with `ceilings`, the least time it can take.
// The first layer's backward computes no dx. Returns the step's total least time in seconds
// (0 without ceilings).
double print_step_costs(const host_training::ModelSpec& spec, int batch, const fast_training::Ceilings* ceilings);

}  // namespace lesson09
