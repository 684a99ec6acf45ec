#pragma once
// Shared by lesson 12's CPU and GPU tests: the sizes, the inputs and the references, written out
// from the contracts in beyond_mnist.hpp. The references run in double (12.1, 12.3) or repeat the
// contract's one float multiply (12.2, compared bit for bit).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "dropout_mask.hpp"
#include "exact_checks.hpp"

namespace beyond_mnist_test {

// 1, 3, 17: smaller than a warp and odd; 1000, 4099: not multiples of any block size.
inline std::vector<size_t> test_sizes() { return {1, 3, 17, 1000, 4099}; }

using course::test::error_of;              // the message a refused call throws
using course::test::first_bit_difference;  // exact comparisons (12.2, and the state after a refused call)

// ---- 12.1 ---------------------------------------------------------------------------------------
// Outputs lie in [0, 1] (sigmoid) or [-1, 1] (tanh), where float's spacing is at most 2^-23.
// A float sigmoid is expf (within 2 ulps on the GPU, 1 on the CPU), one add and one division: within
// about 4 ulps of the double value, relative; tanhf is within 2 ulps. The backward passes are two
// or three roundings. rtol 1e-6 is about 8 ulps. atol 2^-22 (two ulps of 1) admits formulas that
// are exact in absolute terms but not relative to a tiny result: 1 - y*y for y near +-1 (y*y
// rounds by 2^-24), or a sigmoid written through tanh. A wrong formula (dy * y alone, the sign of
// x flipped, x used where y is meant) is off by 1e-2 or more on these inputs.
constexpr double kActivationAtol = 1.0 / (1 << 22), kActivationRtol = 1e-6;

// One activation's reference: f in double, its derivative written with y = f(x), and its range.
struct ActivationRef {
  const char* name;
  double (*f)(double x);
  double (*slope)(double y);
  double lo, hi;
};
inline double sigmoid_ref(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }
inline double sigmoid_slope(double y) { return y * (1.0 - y); }
inline double tanh_ref(double x) { return std::tanh(x); }
inline double tanh_slope(double y) { return 1.0 - y * y; }
inline const ActivationRef kSigmoid{"sigmoid", sigmoid_ref, sigmoid_slope, 0.0, 1.0};
inline const ActivationRef kTanh{"tanh", tanh_ref, tanh_slope, -1.0, 1.0};

inline std::vector<double> forward_ref(const ActivationRef& a, const std::vector<float>& x) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = a.f(x[i]);
  return y;
}

// Extreme inputs (x = 0, +-1000, +-3.4e38): every y finite and in [lo, hi], and exact where the
// true value is 0, 1/2 or +-1 (float holds those). `what` names the output in the messages.
inline void require_in_range(const std::string& what, const ActivationRef& a, const std::vector<float>& x,
                             const std::vector<float>& y) {
  const std::vector<double> ref = forward_ref(a, x);
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(what << " at x = " << x[i] << ": " << y[i]);
    REQUIRE(std::isfinite(y[i]));
    REQUIRE(y[i] >= a.lo);
    REQUIRE(y[i] <= a.hi);
    if (ref[i] == 0.0 || ref[i] == 0.5 || std::fabs(ref[i]) == 1.0) REQUIRE(double(y[i]) == ref[i]);
  }
}
// dx = dy * f'(x) in double, on the float y the backward pass is given.
inline std::vector<double> backward_ref(const ActivationRef& a, const std::vector<float>& y,
                                        const std::vector<float>& dy) {
  std::vector<double> dx(y.size());
  for (size_t i = 0; i < y.size(); ++i) dx[i] = double(dy[i]) * a.slope(y[i]);
  return dx;
}
inline std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// Large and special inputs: every output finite, in range, and 0, 1/2, 1 exactly where the value is.
inline std::vector<float> extreme_inputs() {
  return {-1000.0f, -100.0f, -88.8f, -20.0f, -1.0f, -0.0f, 0.0f, 1e-30f, 1.0f, 20.0f, 88.8f, 100.0f, 1000.0f,
          -3.4e38f, 3.4e38f};
}

// ---- 12.2 ---------------------------------------------------------------------------------------
// What the contract says, in the same float operations: the CPU and the GPU must give these bits.
inline std::vector<float> dropout_expected(const std::vector<float>& x, float rate, uint64_t key) {
  const float scale = beyond_mnist::dropout_scale(rate);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = beyond_mnist::dropout_keeps(key, i, rate) ? x[i] * scale : 0.0f;
  return y;
}

// Fails naming the first element of `what` (written by `file`) whose bits differ from the
// contract's: kept values are in * dropout_scale(rate), bit for bit, dropped ones 0.
inline void require_same_bits(const char* file, const char* what, const std::vector<float>& got,
                              const std::vector<float>& expected) {
  REQUIRE(got.size() == expected.size());
  const long long i = first_bit_difference(got, expected);
  if (i >= 0) {
    INFO(file << ": " << what << "[" << i << "] = " << got[size_t(i)] << ", expected " << expected[size_t(i)]
              << " (kept values are in * dropout_scale(rate), bit for bit; dropped ones 0)");
    REQUIRE(i < 0);
  }
}

// ---- 12.3 ---------------------------------------------------------------------------------------
struct Hyper {
  float lr, rho, eps, weight_decay;
};

// Adadelta's state in double, started from the float values the tested function starts from.
struct AdadeltaRef {
  std::vector<double> w, square_avg, delta_avg;
  explicit AdadeltaRef(const std::vector<float>& w0)
      : w(w0.begin(), w0.end()), square_avg(w0.size(), 0.0), delta_avg(w0.size(), 0.0) {}

  // PyTorch's torch.optim.Adadelta step (its formulas, in double).
  void step(const std::vector<float>& grad, const Hyper& h) {
    const double rho = h.rho, eps = h.eps;
    for (size_t i = 0; i < w.size(); ++i) {
      const double g = double(grad[i]) + double(h.weight_decay) * w[i];
      square_avg[i] = rho * square_avg[i] + (1 - rho) * g * g;
      const double delta = std::sqrt(delta_avg[i] + eps) / std::sqrt(square_avg[i] + eps) * g;
      delta_avg[i] = rho * delta_avg[i] + (1 - rho) * delta * delta;
      w[i] -= double(h.lr) * delta;
    }
  }
};

// Gradients of many magnitudes (uniform in [-1, 1) times 1, 1e-1, 1e-2 or 1e-3) and every 7th one
// exactly 0: where g*g is far below eps, eps decides the step, so each of its two places shows;
// where g = 0 a missing eps gives 0/0.
inline std::vector<float> adadelta_gradient(size_t n, uint64_t seed) {
  course::Rng rng(seed, 12);
  std::vector<float> g(n);
  for (size_t i = 0; i < n; ++i) {
    const float scale = std::pow(10.0f, -float(rng.uniform_int(4)));
    g[i] = i % 7 == 3 ? 0.0f : rng.uniform(-1.0f, 1.0f) * scale;
  }
  return g;
}

// Tolerances. Float rounds each of the ~12 operations of a step by 2^-24 relative; errors in the
// averages are damped by rho at every later step, so after 5 steps square_avg, delta_avg and the
// step stay within a few 1e-7 relative: rtol 1e-5 (the worst measured, with rho = 0 and no
// damping, is a third of these tolerances; an FMA, as nvcc makes, only rounds less).
// The averages can be as small as (1 - rho) * (1e-3 * u)^2. Where weight decay nearly cancels the
// gradient, g keeps the rounding of weight_decay * w, 2^-24 * 0.01 * |w| < 1e-9 absolute (weight
// decay is at most 0.01 in these tests), which moves the averages by about 1e-12: atol 1e-11.
// w (|w| <= ~1.1) rounds by 2^-24 * |w| per step: atol 1e-6 covers 5 steps.
// Mistakes these tests catch (each made in the solution and seen to fail):
//   * square_avg used before its update (the old value in the denominator)
//   * the step recomputed after delta_avg's update (the new delta_avg in the numerator)
//   * eps left out of either square root, or added outside it (0/0 where g = 0; a wrong step where
//     g*g << eps)
//   * weight decay forgotten, subtracted, or applied to w directly instead of added to g
//   * (1 - rho) left out of either average; rho and (1 - rho) swapped; delta_avg not stored
constexpr double kStateAtol = 1e-11, kStateRtol = 1e-5;
constexpr double kWeightAtol = 1e-6, kWeightRtol = 1e-5;

}  // namespace beyond_mnist_test
