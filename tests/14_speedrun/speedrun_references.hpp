#pragma once
// Shared by lesson 14's CPU and GPU tests: the sizes, the inputs and the references, written out
// from the contracts in speedrun.hpp. The references run in double (14.1, 14.2, 14.4) or repeat the
// contract's copy (14.3, compared bit for bit); none of them calls the code under test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "course/rng.hpp"
#include "course_test.hpp"
#include "exact_checks.hpp"
#include "image_shift.hpp"
#include "speedrun.hpp"

namespace speedrun_test {

using course::test::error_of;
using course::test::first_bit_difference;

// 1, 3, 17: smaller than a warp and odd; 1000, 4099: not multiples of any block size.
inline std::vector<size_t> test_sizes() { return {1, 3, 17, 1000, 4099}; }

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A vector whose every element is `value`: outputs poisoned with something other than NaN, where a
// test must tell "written as NaN" from "never written".
inline std::vector<float> filled(size_t n, float value) { return std::vector<float>(n, value); }

// ---- 14.1 ---------------------------------------------------------------------------------------
// The contract's two lines, in double. The tested function computes in double too and rounds once,
// so it must return exactly float(this): two orders of the same double operations differ by an ulp
// of double, which moves the float rounding only for a value within 1e-16 of a tie, and a quotient
// of small integers times a float is never that close to one unless both orders are exact.
inline double one_cycle_ref(int step, int total_steps, int warmup_steps, double peak) {
  if (step < warmup_steps) return peak * double(step + 1) / double(warmup_steps);
  return peak * double(total_steps - step) / double(total_steps - warmup_steps);
}

// ---- 14.2 ---------------------------------------------------------------------------------------
// Logits of a trained network: differences of several units within a row (uniform in [-8, 8)), and
// every row moved by its own offset in [-30, 30), so a formula that forgets the row's maximum in one
// of its places is off by the offset.
inline std::vector<float> smoothing_logits(int batch, int classes, uint64_t seed) {
  course::Rng rng(seed, 14);
  std::vector<float> z(size_t(batch) * classes);
  for (int b = 0; b < batch; ++b) {
    const float offset = rng.uniform(-30.0f, 30.0f);
    for (int k = 0; k < classes; ++k) z[size_t(b) * classes + k] = offset + rng.uniform(-8.0f, 8.0f);
  }
  return z;
}
inline std::vector<int> smoothing_labels(int batch, int classes, uint64_t seed) {
  course::Rng rng(seed, 15);
  std::vector<int> labels(batch);
  for (int& y : labels) y = rng.uniform_int(classes);
  return labels;
}

// One row's loss as the contract writes it: log(sum_k exp(z_k - m)) + m - (1 - s) z_y - (s / K) sum_k z_k.
inline double smoothed_row_loss_ref(const double* z, int label, int classes, double smoothing) {
  const double m = *std::max_element(z, z + classes);
  double sum_exp = 0.0, sum_z = 0.0;
  for (int k = 0; k < classes; ++k) {
    sum_exp += std::exp(z[k] - m);
    sum_z += z[k];
  }
  return std::log(sum_exp) + m - (1.0 - smoothing) * z[label] - smoothing / classes * sum_z;
}

// The mean of the rows' losses: what dlogits is the gradient of (finite differences).
inline double smoothed_mean_loss_ref(const std::vector<double>& z, const std::vector<int>& labels, int batch,
                                     int classes, double smoothing) {
  double total = 0.0;
  for (int b = 0; b < batch; ++b)
    total += smoothed_row_loss_ref(z.data() + size_t(b) * classes, labels[b], classes, smoothing);
  return total / batch;
}

struct SmoothingRef {
  std::vector<double> row_loss, dlogits;
};

// Both outputs in double; NaN in every value of a row whose label is outside 0 .. classes-1.
inline SmoothingRef smoothing_ref(const std::vector<float>& logits, const std::vector<int>& labels, int batch,
                                  int classes, double smoothing) {
  SmoothingRef ref;
  ref.row_loss.assign(batch, std::numeric_limits<double>::quiet_NaN());
  ref.dlogits.assign(size_t(batch) * classes, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> z(classes);
  for (int b = 0; b < batch; ++b) {
    const int y = labels[b];
    if (y < 0 || y >= classes) continue;
    for (int k = 0; k < classes; ++k) z[k] = logits[size_t(b) * classes + k];
    ref.row_loss[b] = smoothed_row_loss_ref(z.data(), y, classes, smoothing);
    const double m = *std::max_element(z.begin(), z.end());
    double sum_exp = 0.0;
    for (double v : z) sum_exp += std::exp(v - m);
    for (int k = 0; k < classes; ++k) {
      const double p = std::exp(z[k] - m) / sum_exp;
      const double one_hot = k == y ? 1.0 : 0.0;
      ref.dlogits[size_t(b) * classes + k] = (p - (1.0 - smoothing) * one_hot - smoothing / classes) / batch;
    }
  }
  return ref;
}

// Tolerances, as 09.6's. A row's sum of exponentials adds `classes` terms <= 1 (float_sum_atol);
// each z_k - m (at most 16 in size: a row spans [-8, 8) around its offset) rounds by up to 2^-24 * 16,
// which moves its exp by that much relative and the loss's two sums of z_k - m by as much absolute:
// the "+ 24" terms of size 1. The loss relative the same. Each gradient element is a probability
// (<= 1) minus a target in [0, 1], over batch: the same bound over batch. The largest error
// measured (solutions, CPU) is under a hundredth of these. Every caught mistake is off by
// smoothing / classes / batch or more at some tested shape (above 1e-3 at 17 x 3).
inline double smoothing_loss_atol(int classes) { return course::float_sum_atol(classes + 24.0); }
inline double smoothing_grad_atol(int classes, int batch) { return smoothing_loss_atol(classes) / batch; }

// Compares both outputs with the reference, naming the output, the worst row and class, the tolerance.
inline void require_smoothing_close(const std::string& file, const std::vector<float>& row_loss,
                                    const std::vector<float>& dlogits, const SmoothingRef& ref, int batch,
                                    int classes) {
  const double tol = smoothing_loss_atol(classes);
  REQUIRE_NAMED_CLOSE(file + ": row_loss", row_loss, ref.row_loss, course::test::matrix("b", batch, "-", 1), tol,
                      tol);
  REQUIRE_NAMED_CLOSE(file + ": dlogits", dlogits, ref.dlogits, course::test::matrix("b", batch, "k", classes),
                      smoothing_grad_atol(classes, batch), tol);
}

// Shapes (batch, classes): one class, fewer classes than a warp, MNIST's 10, more than a warp,
// far more than one; odd batches.
struct LossShape {
  int batch, classes;
};
inline std::vector<LossShape> smoothing_shapes() {
  return {{1, 1}, {3, 10}, {17, 3}, {1000, 10}, {5, 33}, {7, 257}, {2, 1000}, {4099, 1}};
}

// ---- 14.3 ---------------------------------------------------------------------------------------
struct ImageShape {
  int batch, channels, height, width, max_shift;
  size_t size() const { return size_t(batch) * channels * height * width; }
};

// What the contract says, written out: y[b][c][i][j] = x[b][c][i - dy][j - dx] inside the image, else 0.
inline std::vector<float> shift_expected(const std::vector<float>& x, const ImageShape& s, uint64_t key) {
  std::vector<float> y(s.size());
  for (int b = 0; b < s.batch; ++b) {
    const speedrun::Shift d = speedrun::example_shift(key, uint64_t(b), s.max_shift);
    for (int c = 0; c < s.channels; ++c)
      for (int i = 0; i < s.height; ++i)
        for (int j = 0; j < s.width; ++j) {
          const int si = i - d.dy, sj = j - d.dx;
          const size_t plane = (size_t(b) * s.channels + c) * s.height;
          y[(plane + i) * s.width + j] =
              si >= 0 && si < s.height && sj >= 0 && sj < s.width ? x[(plane + si) * s.width + sj] : 0.0f;
        }
  }
  return y;
}

// "[b=2, c=0, i=5, j=1]" for flat index e of an NCHW batch.
inline std::string nchw_index(size_t e, const ImageShape& s) {
  std::ostringstream out;
  const size_t plane = size_t(s.height) * s.width;
  out << "[b=" << e / (plane * s.channels) << ", c=" << e / plane % s.channels << ", i=" << e / s.width % s.height
      << ", j=" << e % s.width << "]";
  return out.str();
}

// Fails naming the first element of y (written by `file`) whose bits differ from the contract's,
// with that image's (dy, dx).
inline void require_same_shift_bits(const std::string& file, const std::vector<float>& y,
                                    const std::vector<float>& expected, const ImageShape& s, uint64_t key) {
  REQUIRE(y.size() == expected.size());
  const long long e = first_bit_difference(y, expected);
  if (e >= 0) {
    const size_t b = size_t(e) / (size_t(s.channels) * s.height * s.width);
    const speedrun::Shift d = speedrun::example_shift(key, b, s.max_shift);
    INFO(file << ": y" << nchw_index(size_t(e), s) << " = " << y[size_t(e)] << ", expected "
              << expected[size_t(e)] << " (image " << b << " moves by dy = " << d.dy << ", dx = " << d.dx
              << ": y[b][c][i][j] = x[b][c][i - dy][j - dx] inside the image, else 0, bit for bit)");
    REQUIRE(e < 0);
  }
}

// Shapes (batch, channels, height, width, max_shift): a single pixel; odd sizes; oblong images; a
// shift as large as the smaller side allows; MNIST's 28 x 28.
inline std::vector<ImageShape> shift_shapes() {
  return {{1, 1, 1, 1, 0}, {3, 1, 5, 7, 2}, {17, 3, 9, 4, 3}, {5, 3, 33, 17, 16}, {1000, 1, 28, 28, 2},
          {4, 2, 28, 28, 4}};
}

// ---- 14.4 ---------------------------------------------------------------------------------------
struct Hyper {
  float lr, momentum, weight_decay;
};

// PyTorch's SGD(nesterov=True) in double, started from the float values the tested function gets.
struct NesterovRef {
  std::vector<double> w, velocity;
  explicit NesterovRef(const std::vector<float>& w0) : w(w0.begin(), w0.end()), velocity(w0.size(), 0.0) {}

  void step(const std::vector<float>& grad, const Hyper& h) {
    const double lr = h.lr, momentum = h.momentum, weight_decay = h.weight_decay;
    for (size_t i = 0; i < w.size(); ++i) {
      const double g = double(grad[i]) + weight_decay * w[i];
      velocity[i] = momentum * velocity[i] + g;
      w[i] -= lr * (g + momentum * velocity[i]);
    }
  }
};

// Gradients of several magnitudes (uniform in [-1, 1) times 1, 1e-1 or 1e-2), every 7th exactly 0.
inline std::vector<float> nesterov_gradient(size_t n, uint64_t seed) {
  course::Rng rng(seed, 16);
  std::vector<float> g(n);
  for (size_t i = 0; i < n; ++i) {
    const float scale = std::pow(10.0f, -float(rng.uniform_int(3)));
    g[i] = i % 7 == 3 ? 0.0f : rng.uniform(-1.0f, 1.0f) * scale;
  }
  return g;
}

// Tolerances. A step is 6 float operations, each rounding by 2^-24 of what it adds. Over 5 steps
// from velocity 0 with |g| <= 1.01 and momentum <= 0.9, |velocity| <= 5.1 and |w| <= 1 + 5 *
// lr * (1.01 + 0.9 * 5.1) < 4: the velocity is a sum of 5 gradients, each rounded, about 2^-24 * 5
// * 5 absolute (1.5e-6), and w adds 5 roundings of up to 4 (1.2e-6) and lr (1 + momentum) times
// the velocity's error (9e-7). Where terms cancel, relative error means nothing: absolute tolerances, 2e-6 for the
// velocity and 5e-6 for w, with a small relative part for the rest. The largest error measured
// (solutions, CPU, 5 steps, n up to 2^20) is a ninth of these. Each caught mistake (the old
// velocity, plain momentum, weight decay lost or applied to w) is off by 1e-3 or more.
constexpr double kVelocityAtol = 2e-6, kVelocityRtol = 1e-6;
constexpr double kWeightAtol = 5e-6, kWeightRtol = 1e-6;

}  // namespace speedrun_test
