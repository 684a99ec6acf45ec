// Lesson 12, step 12.3 on the CPU: adadelta_step against PyTorch's formulas in double, step after
// step, with and without weight decay; bad hyper-parameters refused before anything is written.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "beyond_mnist_references.hpp"
#include "course_test.hpp"

using namespace beyond_mnist_test;
using course::test::random_vector;

namespace {

// `steps` steps from w uniform in [-1, 1) and both averages 0 (Adadelta's start), a new gradient
// each step; w and both averages compared with the double reference after every step.
void check_steps(size_t n, const Hyper& h, uint64_t seed, int steps) {
  std::vector<float> w = random_vector(n, seed), square_avg(n, 0.0f), delta_avg(n, 0.0f);
  AdadeltaRef ref(w);
  for (int t = 1; t <= steps; ++t) {
    CAPTURE(t);
    const std::vector<float> grad = adadelta_gradient(n, seed + 10 * t);
    beyond_mnist::adadelta_step(w.data(), grad.data(), square_avg.data(), delta_avg.data(), n, h.lr, h.rho, h.eps,
                                h.weight_decay);
    ref.step(grad, h);
    REQUIRE_NAMED_CLOSE("exercises/adadelta.cpp: square_avg", square_avg, ref.square_avg, ::course::Shape{},
                        kStateAtol, kStateRtol);
    REQUIRE_NAMED_CLOSE("exercises/adadelta.cpp: delta_avg", delta_avg, ref.delta_avg, ::course::Shape{}, kStateAtol,
                        kStateRtol);
    REQUIRE_NAMED_CLOSE("exercises/adadelta.cpp: w", w, ref.w, ::course::Shape{}, kWeightAtol, kWeightRtol);
  }
}

}  // namespace

TEST_CASE("adadelta_step: one step worked out by hand (eps large, so both of its places matter)", "[12.3]") {
  // rho = 0.5, eps = 0.25, lr = 1 from square_avg = delta_avg = 0:
  //   g = 1:   square_avg = 0.5,   delta = sqrt(0.25) / sqrt(0.75) * 1 = sqrt(1/3),   delta_avg = 1/6
  //   g = 0.5: square_avg = 0.125, delta = sqrt(0.25) / sqrt(0.375) * 0.5 = sqrt(1/6), delta_avg = 1/12
  //   g = 0:   everything stays 0 and w does not move (0/0 if eps is missing from a square root)
  std::vector<float> w = {1.0f, -2.0f, 0.5f}, square_avg(3, 0.0f), delta_avg(3, 0.0f);
  const std::vector<float> grad = {1.0f, 0.5f, 0.0f};
  beyond_mnist::adadelta_step(w.data(), grad.data(), square_avg.data(), delta_avg.data(), 3, 1.0f, 0.5f, 0.25f, 0.0f);
  const double tol = 1e-6;  // a few ulps of values up to 2.4
  REQUIRE_NAMED_CLOSE("square_avg", square_avg, (std::vector<double>{0.5, 0.125, 0.0}), ::course::Shape{}, tol, 0);
  REQUIRE_NAMED_CLOSE("delta_avg", delta_avg, (std::vector<double>{1.0 / 6, 1.0 / 12, 0.0}), ::course::Shape{}, tol,
                      0);
  REQUIRE_NAMED_CLOSE("w", w, (std::vector<double>{1.0 - std::sqrt(1.0 / 3), -2.0 - std::sqrt(1.0 / 6), 0.5}),
                      ::course::Shape{}, tol, 0);

  // Weight decay is added to the gradient: grad 0.5 + 0.5 * w (w = 1) is the g = 1 case above.
  std::vector<float> w1 = {1.0f}, sq1 = {0.0f}, acc1 = {0.0f};
  const std::vector<float> grad1 = {0.5f};
  beyond_mnist::adadelta_step(w1.data(), grad1.data(), sq1.data(), acc1.data(), 1, 1.0f, 0.5f, 0.25f, 0.5f);
  REQUIRE_NAMED_CLOSE("w (weight decay 0.5)", w1, (std::vector<double>{1.0 - std::sqrt(1.0 / 3)}), ::course::Shape{},
                      tol, 0);
  REQUIRE_NAMED_CLOSE("square_avg (weight decay 0.5)", sq1, (std::vector<double>{0.5}), ::course::Shape{}, tol, 0);
}

TEST_CASE("adadelta_step: 5 steps equal PyTorch's formulas in double, with and without weight decay", "[12.3]") {
  // PyTorch's defaults; weight decay with a slower average; a large eps with a short memory.
  const Hyper configs[] = {{1.0f, 0.9f, 1e-6f, 0.0f}, {0.5f, 0.95f, 1e-6f, 0.01f}, {0.1f, 0.5f, 0.25f, 0.01f}};
  for (const Hyper& h : configs)
    for (size_t n : test_sizes()) {
      const uint64_t seed = 1301 + n;
      CAPTURE(h.lr, h.rho, h.eps, h.weight_decay, n);
      COURSE_INPUT_SEED(seed);
      check_steps(n, h, seed, 5);
    }
}

TEST_CASE("adadelta_step: rho 0 (no memory) and rho 1 (plain SGD: the averages stay 0)", "[12.3]") {
  for (float rho : {0.0f, 1.0f}) {
    const Hyper h{0.3f, rho, 1e-4f, 0.01f};
    const uint64_t seed = 1311;
    CAPTURE(rho);
    COURSE_INPUT_SEED(seed);
    check_steps(1000, h, seed, 3);
  }
}

TEST_CASE("adadelta_step refuses lr <= 0, rho outside [0, 1] and eps <= 0, before writing anything", "[12.3]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Hyper good{1.0f, 0.9f, 1e-6f, 0.0f};
  const Hyper bad[] = {{0.0f, 0.9f, 1e-6f, 0.0f},  {-1.0f, 0.9f, 1e-6f, 0.0f}, {nan, 0.9f, 1e-6f, 0.0f},
                       {1.0f, -0.1f, 1e-6f, 0.0f}, {1.0f, 1.1f, 1e-6f, 0.0f},  {1.0f, nan, 1e-6f, 0.0f},
                       {1.0f, 0.9f, 0.0f, 0.0f},   {1.0f, 0.9f, -1e-8f, 0.0f}, {1.0f, 0.9f, nan, 0.0f}};
  const size_t n = 17;
  const std::vector<float> w0 = random_vector(n, 1321), sq0 = random_vector(n, 1322, 0.0f, 1.0f),
                           acc0 = random_vector(n, 1323, 0.0f, 1.0f), grad = random_vector(n, 1324);
  for (const Hyper& h : bad) {
    CAPTURE(h.lr, h.rho, h.eps);
    std::vector<float> w = w0, sq = sq0, acc = acc0;
    const std::string message = error_of([&] {
      beyond_mnist::adadelta_step(w.data(), grad.data(), sq.data(), acc.data(), n, h.lr, h.rho, h.eps,
                                  h.weight_decay);
    });
    INFO("message: '" << message << "'");
    REQUIRE(message.find("adadelta_step") != std::string::npos);
    REQUIRE(first_bit_difference(w, w0) < 0);
    REQUIRE(first_bit_difference(sq, sq0) < 0);
    REQUIRE(first_bit_difference(acc, acc0) < 0);
  }
  std::vector<float> w = w0, sq = sq0, acc = acc0;
  REQUIRE_NOTHROW(beyond_mnist::adadelta_step(w.data(), grad.data(), sq.data(), acc.data(), n, good.lr, good.rho,
                                              good.eps, good.weight_decay));
}
