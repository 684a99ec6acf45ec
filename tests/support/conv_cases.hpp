#pragma once
// The convolution shapes every conv lesson tests (05 direct, 07 im2col, 09 implicit GEMM), the
// reduction length of each output (its tolerance), seeded inputs and lesson 01's result in double.
// Header-only: include it from tests that link host_layers_ref.
#include <cstdint>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"

namespace course::test {

struct ConvCase {
  std::string name;
  host_layers::ConvShape s;  // {batch, in_channels, height, width, out_channels, kernel_h, kernel_w, stride, pad}
};

// Batch 1 to 5; 1 to 40 channels; kernels 1x1 to 5x5 and non-square; stride 1/2/3; pad 0/1/2; odd
// and non-square images; 1x1 outputs; outputs larger than the input; inputs no window reads;
// model A's two convolutions (batch 3).
inline std::vector<ConvCase> conv_cases() {
  return {
      {"1x1 image, 1x1 kernel", {1, 1, 1, 1, 1, 1, 1, 1, 0}},
      {"3x3 image, 2x2 kernel", {1, 1, 3, 3, 1, 2, 2, 1, 0}},
      {"5x5 kernel covering a 5x5 image: 1x1 output", {3, 3, 5, 5, 2, 5, 5, 1, 0}},
      {"5x5 kernel on a 3x3 image, pad 1: 1x1 output", {2, 4, 3, 3, 3, 5, 5, 1, 1}},
      {"1x1 kernel, 3 channels, batch 3", {3, 3, 17, 13, 4, 1, 1, 1, 0}},
      {"1x1 kernel, stride 2: inputs no window reads", {4, 4, 9, 7, 2, 1, 1, 2, 0}},
      {"3x3 stride 1 pad 1, odd non-square image", {3, 3, 17, 13, 4, 3, 3, 1, 1}},
      {"3x3 stride 2 pad 1", {1, 3, 17, 17, 4, 3, 3, 2, 1}},
      {"3x3 stride 1 pad 2: output larger than the input", {3, 3, 7, 9, 5, 3, 3, 1, 2}},
      {"2x2 stride 2 (exact tiling)", {3, 3, 28, 28, 3, 2, 2, 2, 0}},
      {"5x5 stride 2 pad 0, non-square image", {3, 3, 33, 28, 7, 5, 5, 2, 0}},
      {"5x5 stride 2 pad 2", {3, 1, 28, 28, 5, 5, 5, 2, 2}},
      {"5x5 stride 2 pad 2 on a 5x5 image", {2, 1, 5, 5, 3, 5, 5, 2, 2}},
      {"3x5 kernel, stride 3, pad 0", {2, 3, 33, 17, 3, 3, 5, 3, 0}},
      {"3x5 kernel, stride 2, pad 1", {3, 2, 6, 7, 4, 3, 5, 2, 1}},
      {"3x5 kernel, stride 1, pad 1", {2, 3, 9, 11, 5, 3, 5, 1, 1}},
      {"3x3 stride 3 pad 1", {2, 3, 17, 17, 2, 3, 3, 3, 1}},
      {"5x5 stride 3 pad 2: last input columns dropped", {1, 3, 10, 8, 6, 5, 5, 3, 2}},
      {"16 -> 40 channels, uneven against any tile", {5, 16, 13, 11, 40, 5, 5, 1, 2}},
      {"model A conv1 (batch 3)", {3, 1, 28, 28, 32, 5, 5, 1, 2}},
      {"model A conv2 (batch 3)", {3, 32, 14, 14, 64, 5, 5, 1, 2}},
  };
}

inline std::string describe(const host_layers::ConvShape& s) {
  return "N=" + std::to_string(s.batch) + " C=" + std::to_string(s.in_channels) + " H=" + std::to_string(s.height) +
         " W=" + std::to_string(s.width) + " O=" + std::to_string(s.out_channels) + " k=" +
         std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + " stride=" + std::to_string(s.stride) +
         " pad=" + std::to_string(s.pad) + " -> " + std::to_string(s.out_h()) + "x" + std::to_string(s.out_w());
}

// ---- tolerance ------------------------------------------------------------------------------
// Every result is a float sum of `terms` products of values in [-1, 1], compared with the same
// sum in double: course::float_sum_atol(terms), 8 * FLT_EPSILON * terms (course/check.hpp says
// why), far below the error of a wrong index or a lost addition (the size of one whole term,
// ~0.3). It grows with the reduction:
//   forward:  C*kh*kw products + the bias       dx: O*kh*kw products
//   dW:       N*OH*OW products                  dbias: N*OH*OW values of dy
inline double forward_terms(const host_layers::ConvShape& s) {
  return double(s.in_channels) * s.kernel_h * s.kernel_w + 1;
}
inline double dx_terms(const host_layers::ConvShape& s) { return double(s.out_channels) * s.kernel_h * s.kernel_w; }
inline double dw_terms(const host_layers::ConvShape& s) { return double(s.batch) * s.out_h() * s.out_w(); }

// ---- inputs and lesson 01's result ------------------------------------------------------------
struct ConvInputs {
  std::vector<float> x, W, bias, dy;
};
// Seeded uniform values in [-1, 1): random signs, never all equal.
inline ConvInputs random_conv_inputs(const host_layers::ConvShape& s, uint64_t seed) {
  return {random_vector(s.input_size(), seed), random_vector(s.weight_size(), seed + 1),
          random_vector(s.out_channels, seed + 2), random_vector(s.output_size(), seed + 3)};
}

// Lesson 01's loops (built from solutions) in double.
struct ConvReference {
  std::vector<double> y, dx, dW, dbias;
};
inline ConvReference conv_reference(const host_layers::ConvShape& s, const ConvInputs& in) {
  const auto x = to_double(in.x), W = to_double(in.W), b = to_double(in.bias), dy = to_double(in.dy);
  ConvReference r{std::vector<double>(s.output_size()), std::vector<double>(s.input_size()),
                  std::vector<double>(s.weight_size()), std::vector<double>(s.out_channels)};
  host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), r.y.data());
  host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), r.dx.data(), r.dW.data(), r.dbias.data());
  return r;
}

}  // namespace course::test
