#pragma once
// Shared by lesson 05's GPU tests: the shapes, random inputs, lesson 01's double reference,
// runners that poison every output (and the workspace) with NaN before each call, the tolerance,
// and the finite-difference spot check.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "conv_cases.hpp"
#include "conv_direct.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"

namespace conv05 {

using host_layers::ConvShape;

using course::test::ConvCase;
using course::test::conv_cases;  // tests/support/conv_cases.hpp: the shapes every conv lesson tests

// Small shapes for the finite-difference checks.
inline std::vector<ConvCase> fd_cases() {
  return {
      {"3x3 stride 2 pad 1", {2, 2, 5, 6, 3, 3, 3, 2, 1}},
      {"5x5 stride 1 pad 2", {1, 3, 7, 7, 2, 5, 5, 1, 2}},
      {"3x5 stride 3 pad 0", {3, 1, 8, 11, 2, 3, 5, 3, 0}},
      {"1x1", {3, 1, 4, 5, 2, 1, 1, 1, 0}},
  };
}

using course::test::describe;
using course::test::dw_terms;
using course::test::dx_terms;
using course::test::forward_terms;
using course::float_sum_atol;
using course::test::ConvInputs;
using course::test::ConvReference;
using course::test::conv_reference;
using course::test::random_conv_inputs;

// ---- GPU runners: outputs and workspace poisoned (NaN) before every call ----------------------------
inline std::vector<float> gpu_forward(const ConvShape& s, const ConvInputs& in) {
  course::DeviceBuffer<float> x(in.x), W(in.W), b(in.bias), y(s.output_size());
  y.poison();
  conv_direct::conv2d_forward(s, x.data(), W.data(), b.data(), y.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return y.to_host();
}

inline std::vector<float> gpu_backward_input(const ConvShape& s, const ConvInputs& in) {
  course::DeviceBuffer<float> W(in.W), dy(in.dy), dx(s.input_size());
  dx.poison();
  conv_direct::conv2d_backward_input(s, W.data(), dy.data(), dx.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return dx.to_host();
}

struct WeightGrads {
  std::vector<float> dW, dbias;
};

inline WeightGrads gpu_backward_weight_atomic(const ConvShape& s, const ConvInputs& in) {
  course::DeviceBuffer<float> x(in.x), dy(in.dy), dW(s.weight_size()), db(s.out_channels);
  dW.poison();
  db.poison();
  conv_direct::conv2d_backward_weight_atomic(s, x.data(), dy.data(), dW.data(), db.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {dW.to_host(), db.to_host()};
}

// The workspace is exactly the size conv2d_backward_weight_workspace asks for (so memcheck
// catches a write past it) and full of NaN (so a partial the kernels forget to write shows).
inline WeightGrads gpu_backward_weight(const ConvShape& s, const ConvInputs& in) {
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
  LinearLoss(const ConvShape& shape, const ConvInputs& in)
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
