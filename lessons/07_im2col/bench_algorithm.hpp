#pragma once
// One way to run a convolution, as the lesson 07 benchmark sees it: forward, backward
// (dx, dW, dbias overwritten), and the scratch memory it holds beyond inputs, weights
// and outputs. Device pointers, default stream.
#include <cstddef>
#include <functional>
#include <string>

#include "host_layers.hpp"

namespace im2col_bench {

struct Algorithm {
  std::string name;
  std::function<void(const float* x, const float* W, const float* b, float* y)> forward;
  std::function<void(const float* x, const float* W, const float* dy, float* dx, float* dW, float* db)> backward;
  size_t extra_bytes = 0;
  std::string note;  // printed under the table (e.g. the algorithms cuDNN picked)
};

// Lesson 05's direct convolution (direct_conv_algorithm.cpp; built when lesson 05 is).
Algorithm direct_algorithm(const host_layers::ConvShape& s);

}  // namespace im2col_bench
