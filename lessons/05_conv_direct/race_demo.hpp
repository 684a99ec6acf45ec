#pragma once
// The tempting WRONG weight gradient, kept for lesson05_conv_direct to show the race (read-only,
// not an exercise, not in the conv_direct library, never called by the tests).
#include "conv_direct.hpp"

namespace conv_direct {

// Lesson 01's backward loop moved to the GPU as it is: one thread per output element (like the
// forward kernel) adds dy * x into every dW tap its window touches, and dy into dbias, with a
// plain `+=`. Thousands of threads read-modify-write the same dW entries at once, so most
// additions are lost and the result changes from run to run. Zeroes dW and dbias first.
void conv2d_backward_weight_racy(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias);

}  // namespace conv_direct
