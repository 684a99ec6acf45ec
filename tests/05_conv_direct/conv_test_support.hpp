#pragma once
// Shared by lesson 05's GPU tests: the shapes, random inputs, lesson 01's double reference,
// runners that poison every output (and the workspace) with NaN before each call, the tolerance,
// and the finite-difference spot check.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "conv_direct.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"

namespace conv05 {

using host_layers::ConvShape;

struct ConvCase {
  std::string name;
  ConvShape s;  // {batch, in_channels, height, width, out_channels, kernel_h, kernel_w, stride, pad}
};

// Batch 1 to 5; 1, 2, 3, 4, 16 and 32 input channels; kernels 1x1, 3x3, 5x5 and 3x5; stride 1/2/3;
// pad 0/1/2; odd and non-square images; 1x1 outputs; model A's two convolutions (batch 3).
inline std::vector<ConvCase> conv_cases() {
  return {
      {"1x1 image, 1x1 kernel", {1, 1, 1, 1, 1, 1, 1, 1, 0}},
      {"5x5 kernel covering a 5x5 image: 1x1 output", {3, 3, 5, 5, 2, 5, 5, 1, 0}},
      {"5x5 kernel on a 3x3 image, pad 1: 1x1 output", {2, 4, 3, 3, 3, 5, 5, 1, 1}},
      {"3x3 stride 1 pad 1, odd non-square image", {3, 3, 17, 13, 4, 3, 3, 1, 1}},
      {"5x5 stride 2 pad 2", {3, 1, 28, 28, 5, 5, 5, 2, 2}},
      {"3x5 kernel, stride 3, pad 0", {2, 3, 33, 17, 3, 3, 5, 3, 0}},
      {"1x1 kernel, stride 2: inputs no window reads", {4, 4, 9, 7, 2, 1, 1, 2, 0}},
      {"3x3 stride 1 pad 2: output larger than the input", {3, 3, 7, 9, 5, 3, 3, 1, 2}},
      {"3x5 kernel, stride 2, pad 1", {3, 2, 6, 7, 4, 3, 5, 2, 1}},
      {"3x3 stride 3 pad 1", {2, 3, 17, 17, 2, 3, 3, 3, 1}},
      {"5x5 stride 3 pad 2: last input columns dropped", {1, 3, 10, 8, 6, 5, 5, 3, 2}},
      {"16 -> 40 channels: 05.4 splits into uneven chunks", {5, 16, 13, 11, 40, 5, 5, 1, 2}},
      {"model A conv1 (batch 3)", {3, 1, 28, 28, 32, 5, 5, 1, 2}},
      {"model A conv2 (batch 3)", {3, 32, 14, 14, 64, 5, 5, 1, 2}},
  };
}

// Small shapes for the finite-difference checks.
inline std::vector<ConvCase> fd_cases() {
  return {
      {"3x3 stride 2 pad 1", {2, 2, 5, 6, 3, 3, 3, 2, 1}},
      {"5x5 stride 1 pad 2", {1, 3, 7, 7, 2, 5, 5, 1, 2}},
      {"3x5 stride 3 pad 0", {3, 1, 8, 11, 2, 3, 5, 3, 0}},
      {"1x1", {3, 1, 4, 5, 2, 1, 1, 1, 0}},
  };
}

inline std::string describe(const ConvShape& s) {
  return "N=" + std::to_string(s.batch) + " C=" + std::to_string(s.in_channels) + " H=" + std::to_string(s.height) +
         " W=" + std::to_string(s.width) + " O=" + std::to_string(s.out_channels) + " k=" +
         std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + " stride=" + std::to_string(s.stride) +
         " pad=" + std::to_string(s.pad) + " -> " + std::to_string(s.out_h()) + "x" + std::to_string(s.out_w());
}

// ---- tolerance ------------------------------------------------------------------------------
// Every result is a float sum of `terms` products of values in [-1, 1], compared with the same
// sum in double: course::float_sum_atol(terms), 8 * FLT_EPSILON * terms (course/check.hpp says
// why). The products' spread is 1/3, so the rounding is nearer FLT_EPSILON * terms / 3: the
// bound is ~25x that, yet far below the error of a wrong index or a lost addition (the size of
// one whole term, ~0.3). It grows with the reduction:
//   forward:  C*kh*kw products + the bias       dx: O*kh*kw products
//   dW:       N*OH*OW products                  dbias: N*OH*OW values of dy
// No relative part: with |terms| <= 1 the absolute bound already covers large results.
using course::float_sum_atol;
inline double forward_terms(const ConvShape& s) { return double(s.in_channels) * s.kernel_h * s.kernel_w + 1; }
inline double dx_terms(const ConvShape& s) { return double(s.out_channels) * s.kernel_h * s.kernel_w; }
inline double dw_terms(const ConvShape& s) { return double(s.batch) * s.out_h() * s.out_w(); }

// ---- inputs and the reference -----------------------------------------------------------------
struct Inputs {
  std::vector<float> x, W, bias, dy;
};
// Seeded uniform values in [-1, 1): random signs, never all equal.
inline Inputs random_inputs(const ConvShape& s, uint64_t seed) {
  using course::test::random_vector;
  return {random_vector(s.input_size(), seed), random_vector(s.weight_size(), seed + 1),
          random_vector(s.out_channels, seed + 2), random_vector(s.output_size(), seed + 3)};
}

// Lesson 01's loops (built from solutions) in double.
struct Reference {
  std::vector<double> y, dx, dW, dbias;
};
inline Reference reference(const ConvShape& s, const Inputs& in) {
  using course::test::to_double;
  const auto x = to_double(in.x), W = to_double(in.W), b = to_double(in.bias), dy = to_double(in.dy);
  Reference r{std::vector<double>(s.output_size()), std::vector<double>(s.input_size()),
              std::vector<double>(s.weight_size()), std::vector<double>(s.out_channels)};
  host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), r.y.data());
  host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), r.dx.data(), r.dW.data(), r.dbias.data());
  return r;
}

// ---- GPU runners: outputs and workspace poisoned (NaN) before every call ----------------------------
inline std::vector<float> gpu_forward(const ConvShape& s, const Inputs& in) {
  course::DeviceBuffer<float> x(in.x), W(in.W), b(in.bias), y(s.output_size());
  y.poison();
  conv_direct::conv2d_forward(s, x.data(), W.data(), b.data(), y.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return y.to_host();
}

inline std::vector<float> gpu_backward_input(const ConvShape& s, const Inputs& in) {
  course::DeviceBuffer<float> W(in.W), dy(in.dy), dx(s.input_size());
  dx.poison();
  conv_direct::conv2d_backward_input(s, W.data(), dy.data(), dx.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return dx.to_host();
}

struct WeightGrads {
  std::vector<float> dW, dbias;
};

inline WeightGrads gpu_backward_weight_atomic(const ConvShape& s, const Inputs& in) {
  course::DeviceBuffer<float> x(in.x), dy(in.dy), dW(s.weight_size()), db(s.out_channels);
  dW.poison();
  db.poison();
  conv_direct::conv2d_backward_weight_atomic(s, x.data(), dy.data(), dW.data(), db.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {dW.to_host(), db.to_host()};
}

// The workspace is exactly the size conv2d_backward_weight_workspace asks for (so memcheck
// catches a write past it) and full of NaN (so a partial the kernels forget to write shows).
inline WeightGrads gpu_backward_weight(const ConvShape& s, const Inputs& in) {
  course::DeviceBuffer<float> x(in.x), dy(in.dy), dW(s.weight_size()), db(s.out_channels);
  course::DeviceBuffer<float> work(conv_direct::conv2d_backward_weight_workspace(s));
  dW.poison();
  db.poison();
  work.poison();
  conv_direct::conv2d_backward_weight(s, x.data(), dy.data(), dW.data(), db.data(), work.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {dW.to_host(), db.to_host()};
}

// ---- finite differences ---------------------------------------------------------------------
// L(x, W, b) = sum_i r[i] * y[i] with y = conv(x, W, b) from lesson 01 in double, so dL/dy = r:
// the GPU backward called with dy = r must return dL/dx, dL/dW, dL/dbias. L is linear in every
// single entry, so the central difference (L(p + eps) - L(p - eps)) / 2eps has no truncation
// error at any eps; what is left is double rounding, ~1e-16 * |L| / eps, below 1e-11 here
// (|L| < 100 on these small shapes, eps = 1e-3).
struct LinearLoss {
  LinearLoss(const ConvShape& shape, const Inputs& in)
      : s(shape), x(in.x.begin(), in.x.end()), W(in.W.begin(), in.W.end()), b(in.bias.begin(), in.bias.end()),
        r(in.dy.begin(), in.dy.end()), y(shape.output_size()) {}
  double operator()() {
    host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), y.data());
    double L = 0;
    for (size_t i = 0; i < y.size(); ++i) L += r[i] * y[i];
    return L;
  }
  ConvShape s;
  std::vector<double> x, W, b, r, y;
};

// Checks gpu[i] against the central difference of L with respect to param[i] for the first and
// the last entry (edge pixels / taps that see padding) and `random_picks` entries chosen by seed;
// for every entry when param has no more than that many (the bias).
// The GPU side is a float sum of `terms` products: the tolerance is float_sum_atol(terms)
// (the double-rounding error of the difference, < 1e-11, is far below it).
inline void require_fd_matches(const std::string& name, LinearLoss& loss, std::vector<double>& param,
                               const std::vector<float>& gpu, double terms, uint64_t seed, int random_picks = 6) {
  REQUIRE(gpu.size() == param.size());
  std::vector<size_t> picks;
  if (param.size() <= size_t(random_picks) + 2) {
    for (size_t i = 0; i < param.size(); ++i) picks.push_back(i);
  } else {
    picks = {0, param.size() - 1};
    course::Rng rng(seed, 5);
    for (int k = 0; k < random_picks; ++k)
      picks.push_back(static_cast<size_t>(rng.uniform_int(static_cast<int>(param.size()))));
  }
  for (size_t i : picks) {
    const double fd = course::test::numeric_derivative(loss, param, i, 1e-3);
    INFO(name << "[" << i << "]: GPU " << gpu[i] << ", central difference " << fd);
    REQUIRE(std::isfinite(gpu[i]));
    REQUIRE(std::fabs(gpu[i] - fd) <= float_sum_atol(terms));
  }
}

}  // namespace conv05
