#pragma once
// Shapes and helpers shared by lesson 07's tests.
#include <string>
#include <vector>

#include "course/check.hpp"
#include "im2col.hpp"

namespace im2col_test {

using host_layers::ConvShape;

struct ConvCase {
  std::string name;
  ConvShape s;  // {batch, in_channels, height, width, out_channels, kernel_h, kernel_w, stride, pad}
};

// Odd sizes, stride 1/2/3, padding 0/1/2, kernels 1x1 to 5x5 (and non-square), 1 and 3
// channels, batch 1 and 3, and the two convolutions of lesson 02's model A.
inline std::vector<ConvCase> conv_cases() {
  return {
      {"3x3 image, 2x2 kernel", {1, 1, 3, 3, 1, 2, 2, 1, 0}},
      {"1x1 image, 1x1 kernel", {1, 1, 1, 1, 2, 1, 1, 1, 0}},
      {"1x1 kernel, 3 channels, batch 3", {3, 3, 17, 13, 4, 1, 1, 1, 0}},
      {"1x1 kernel, stride 2 (gaps: pixels no window reads)", {3, 3, 9, 8, 2, 1, 1, 2, 0}},
      {"3x3 stride 1 pad 1", {3, 3, 17, 17, 5, 3, 3, 1, 1}},
      {"3x3 stride 2 pad 1", {1, 3, 17, 17, 4, 3, 3, 2, 1}},
      {"3x3 stride 1 pad 2 (output larger than input)", {3, 1, 7, 9, 5, 3, 3, 1, 2}},
      {"2x2 stride 2 (exact tiling)", {3, 3, 28, 28, 3, 2, 2, 2, 0}},
      {"5x5 stride 2 pad 0, non-square image", {3, 3, 33, 28, 7, 5, 5, 2, 0}},
      {"5x5 stride 2 pad 2", {2, 1, 5, 5, 3, 5, 5, 2, 2}},
      {"3x5 kernel, stride 2 pad 1", {3, 2, 6, 7, 4, 3, 5, 2, 1}},
      {"3x3 stride 3 pad 1", {3, 3, 17, 17, 2, 3, 3, 3, 1}},
      {"model A conv1 (batch 3)", {3, 1, 28, 28, 32, 5, 5, 1, 2}},
      {"model A conv2 (batch 3)", {3, 32, 14, 14, 64, 5, 5, 1, 2}},
  };
}

inline std::string describe(const ConvShape& s) {
  return "N=" + std::to_string(s.batch) + " C=" + std::to_string(s.in_channels) + " H=" + std::to_string(s.height) +
         " W=" + std::to_string(s.width) + " O=" + std::to_string(s.out_channels) + " k=" +
         std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + " stride=" + std::to_string(s.stride) +
         " pad=" + std::to_string(s.pad);
}

// Tolerance for a float result that is a sum of `terms` products of values in [-1, 1],
// compared with a double reference: course::float_sum_atol(terms) = 8 * FLT_EPSILON * terms
// (course/check.hpp says why), far below the O(1) error of a wrong index.
using course::float_sum_atol;

// The reduction lengths of each output of a convolution.
inline double forward_terms(const ConvShape& s) { return double(s.in_channels) * s.kernel_h * s.kernel_w + 1; }
inline double dx_terms(const ConvShape& s) { return double(s.out_channels) * s.kernel_h * s.kernel_w; }
inline double dw_terms(const ConvShape& s) { return double(s.batch) * s.out_h() * s.out_w(); }

}  // namespace im2col_test
