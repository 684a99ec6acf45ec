// Lesson 14, step 14.4 on the CPU: nesterov_step against PyTorch's formulas in double, step after
// step, with and without weight decay; bad hyper-parameters refused before anything is written.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;
using course::test::random_vector;

namespace {

// `steps` steps from w uniform in [-1, 1) and velocity 0, a new gradient each step; w and the
// velocity compared with the double reference after every step.
void check_steps(size_t n, const Hyper& h, uint64_t seed, int steps) {
  std::vector<float> w = random_vector(n, seed), velocity(n, 0.0f);
  NesterovRef ref(w);
  for (int t = 1; t <= steps; ++t) {
    CAPTURE(t);
    const std::vector<float> grad = nesterov_gradient(n, seed + 10 * t);
    speedrun::nesterov_step(w.data(), grad.data(), velocity.data(), n, h.lr, h.momentum, h.weight_decay);
    ref.step(grad, h);
    REQUIRE_NAMED_CLOSE("exercises/nesterov.cpp: velocity", velocity, ref.velocity, ::course::Shape{}, kVelocityAtol,
                        kVelocityRtol);
    REQUIRE_NAMED_CLOSE("exercises/nesterov.cpp: w", w, ref.w, ::course::Shape{}, kWeightAtol, kWeightRtol);
  }
}

}  // namespace

TEST_CASE("nesterov_step: two steps worked out by hand (the NEW velocity in the step)", "[14.4]") {
  // lr 1, momentum 0.5, from velocity 0:
  //   step 1, g = 1:   velocity = 1,   w -= 1 + 0.5 * 1   = 1.5   (the old velocity would give 1)
  //   step 2, g = 1:   velocity = 1.5, w -= 1 + 0.5 * 1.5 = 1.75
  //   g = -2 then 0: velocity -2, w += 3; then velocity -1, w += 0.5 (0 + 0.5 * -1)
  std::vector<float> w = {10.0f, 0.0f}, velocity = {0.0f, 0.0f};
  speedrun::nesterov_step(w.data(), std::vector<float>{1.0f, -2.0f}.data(), velocity.data(), 2, 1.0f, 0.5f, 0.0f);
  REQUIRE_NAMED_CLOSE("velocity after step 1", velocity, (std::vector<double>{1.0, -2.0}), ::course::Shape{}, 0, 0);
  REQUIRE_NAMED_CLOSE("w after step 1", w, (std::vector<double>{8.5, 3.0}), ::course::Shape{}, 0, 0);
  speedrun::nesterov_step(w.data(), std::vector<float>{1.0f, 0.0f}.data(), velocity.data(), 2, 1.0f, 0.5f, 0.0f);
  REQUIRE_NAMED_CLOSE("velocity after step 2", velocity, (std::vector<double>{1.5, -1.0}), ::course::Shape{}, 0, 0);
  REQUIRE_NAMED_CLOSE("w after step 2", w, (std::vector<double>{6.75, 3.5}), ::course::Shape{}, 0, 0);

  // Weight decay is added to the gradient: grad 0.5 + 0.5 * w (w = 1) is g = 1, as above.
  std::vector<float> w1 = {1.0f}, v1 = {0.0f};
  speedrun::nesterov_step(w1.data(), std::vector<float>{0.5f}.data(), v1.data(), 1, 1.0f, 0.5f, 0.5f);
  REQUIRE_NAMED_CLOSE("velocity (weight decay 0.5)", v1, (std::vector<double>{1.0}), ::course::Shape{}, 0, 0);
  REQUIRE_NAMED_CLOSE("w (weight decay 0.5)", w1, (std::vector<double>{-0.5}), ::course::Shape{}, 0, 0);
}

TEST_CASE("nesterov_step: 5 steps equal PyTorch's formulas in double, with and without weight decay", "[14.4]") {
  // The speedrun's values; a larger rate with weight decay; a short memory with strong decay.
  const Hyper configs[] = {{0.1f, 0.9f, 0.0f}, {0.05f, 0.9f, 5e-4f}, {0.3f, 0.5f, 0.01f}};
  for (const Hyper& h : configs)
    for (size_t n : test_sizes()) {
      const uint64_t seed = 1601 + n;
      CAPTURE(h.lr, h.momentum, h.weight_decay, n);
      COURSE_INPUT_SEED(seed);
      check_steps(n, h, seed, 5);
    }
}

TEST_CASE("nesterov_step: momentum 0 is plain SGD; a velocity carried in is used", "[14.4]") {
  const size_t n = 1000;
  const uint64_t seed = 1611;
  check_steps(n, Hyper{0.2f, 0.0f, 0.01f}, seed, 3);  // velocity = g, w -= lr * g

  // Mid-run: a velocity that is not 0. velocity = m v + g, w -= lr (g + m velocity).
  const Hyper h{0.1f, 0.9f, 1e-3f};
  std::vector<float> w = random_vector(n, seed + 1), velocity = random_vector(n, seed + 2, -3.0f, 3.0f);
  const std::vector<float> grad = nesterov_gradient(n, seed + 3);
  NesterovRef ref(w);
  ref.velocity.assign(velocity.begin(), velocity.end());
  speedrun::nesterov_step(w.data(), grad.data(), velocity.data(), n, h.lr, h.momentum, h.weight_decay);
  ref.step(grad, h);
  REQUIRE_NAMED_CLOSE("exercises/nesterov.cpp: velocity (carried in)", velocity, ref.velocity, ::course::Shape{},
                      kVelocityAtol, kVelocityRtol);
  REQUIRE_NAMED_CLOSE("exercises/nesterov.cpp: w (velocity carried in)", w, ref.w, ::course::Shape{}, kWeightAtol,
                      kWeightRtol);
}

TEST_CASE("nesterov_step refuses lr <= 0, momentum outside [0, 1) and weight_decay < 0, before writing anything",
          "[14.4]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Bad {
    Hyper h;
    const char* names;
  };
  const Bad bad[] = {{{0.0f, 0.9f, 0.0f}, "lr"},        {{-0.1f, 0.9f, 0.0f}, "lr"},
                     {{nan, 0.9f, 0.0f}, "lr"},         {{0.1f, -0.1f, 0.0f}, "momentum"},
                     {{0.1f, 1.0f, 0.0f}, "momentum"},  {{0.1f, nan, 0.0f}, "momentum"},
                     {{0.1f, 0.9f, -1e-4f}, "weight_decay"}, {{0.1f, 0.9f, nan}, "weight_decay"}};
  const size_t n = 17;
  const std::vector<float> w0 = random_vector(n, 1621), v0 = random_vector(n, 1622), grad = random_vector(n, 1623);
  for (const Bad& b : bad) {
    CAPTURE(b.h.lr, b.h.momentum, b.h.weight_decay);
    std::vector<float> w = w0, velocity = v0;
    const std::string message = error_of([&] {
      speedrun::nesterov_step(w.data(), grad.data(), velocity.data(), n, b.h.lr, b.h.momentum, b.h.weight_decay);
    });
    INFO("message: '" << message << "' (check_nesterov's, called first)");
    REQUIRE(message.find("nesterov_step: ") == 0);
    REQUIRE(message.find(b.names) != std::string::npos);
    REQUIRE(first_bit_difference(w, w0) < 0);
    REQUIRE(first_bit_difference(velocity, v0) < 0);
  }
  std::vector<float> w = w0, velocity = v0;
  REQUIRE_NOTHROW(speedrun::nesterov_step(w.data(), grad.data(), velocity.data(), n, 0.1f, 0.0f, 0.0f));
  REQUIRE_NOTHROW(speedrun::nesterov_step(nullptr, nullptr, nullptr, 0, 0.1f, 0.9f, 0.0f));
}
