// Lesson 14, step 14.1: one_cycle_lr against the contract's two lines in double, rounded once to
// float, at every step of runs of many lengths; the shape of the cycle; bad arguments refused.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;

namespace {

struct Run {
  int total_steps, warmup_steps;
  float peak_lr;
};

// Every step of a run, as the trainer asks for them.
std::vector<float> whole_run(const Run& r) {
  std::vector<float> rates(r.total_steps);
  for (int step = 0; step < r.total_steps; ++step)
    rates[step] = speedrun::one_cycle_lr(step, r.total_steps, r.warmup_steps, r.peak_lr);
  return rates;
}

// got must be float(reference): the double value rounded once (speedrun_references.hpp says why
// no tolerance is needed). Compared as bits, so a float computation an ulp away fails.
void require_rate(const char* where, int step, const Run& r, float got) {
  const float expected = float(one_cycle_ref(step, r.total_steps, r.warmup_steps, r.peak_lr));
  INFO("exercises/schedule.cpp: one_cycle_lr(step " << step << ", total_steps " << r.total_steps << ", warmup_steps "
                                                   << r.warmup_steps << ", peak_lr " << r.peak_lr << ") = " << got
                                                   << " (" << where << "), expected " << expected
                                                   << " (the formula in double, rounded once to float)");
  REQUIRE(std::memcmp(&got, &expected, sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("one_cycle_lr: hand values at the first step, the last warm-up step, the first decay step and the last",
          "[14.1]") {
  // 10 steps, 4 of warm-up, peak 1: up 1/4, 2/4, 3/4, 4/4, then down 6/6, 5/6, ..., 1/6.
  const Run r{10, 4, 1.0f};
  CHECK(speedrun::one_cycle_lr(0, 10, 4, 1.0f) == 0.25f);            // (0 + 1) / 4: the first step learns
  CHECK(speedrun::one_cycle_lr(3, 10, 4, 1.0f) == 1.0f);             // the last warm-up step reaches the peak
  CHECK(speedrun::one_cycle_lr(4, 10, 4, 1.0f) == 1.0f);             // the decay starts at the peak: 6 / 6
  CHECK(speedrun::one_cycle_lr(9, 10, 4, 1.0f) == float(1.0 / 6.0));  // the last step: 1 / 6, not 0
  // A peak that float cannot hold exactly, so the double computation shows.
  const Run odd{1000, 300, 0.37f};
  for (int step : {0, 1, 299, 300, 301, 998, 999}) require_rate("a hand-picked step", step, odd, whole_run(odd)[step]);
  for (int step : {0, 3, 4, 9}) require_rate("a hand-picked step", step, r, whole_run(r)[step]);
}

TEST_CASE("one_cycle_lr: every step of runs of many lengths equals the formula in double, rounded once", "[14.1]") {
  const Run runs[] = {{1, 0, 0.1f},    {2, 0, 0.37f},   {2, 1, 0.37f},    {3, 0, 1.0f},     {3, 2, 0.05f},
                      {17, 5, 0.1f},   {17, 16, 0.3f},  {1000, 0, 0.37f}, {1000, 300, 2.0f}, {1000, 999, 0.01f},
                      {4099, 1, 0.7f}, {235, 47, 3e-3f}};
  for (const Run& r : runs) {
    CAPTURE(r.total_steps, r.warmup_steps, r.peak_lr);
    const std::vector<float> rates = whole_run(r);
    for (int step = 0; step < r.total_steps; ++step) require_rate("in a whole run", step, r, rates[step]);
  }
}

TEST_CASE("one_cycle_lr: up over the warm-up, peak_lr at its top, down after, never 0", "[14.1]") {
  const Run runs[] = {{17, 5, 0.1f}, {1000, 300, 0.37f}, {1000, 0, 0.37f}, {235, 234, 1.0f}, {2, 1, 0.5f}};
  for (const Run& r : runs) {
    CAPTURE(r.total_steps, r.warmup_steps, r.peak_lr);
    const std::vector<float> rates = whole_run(r);
    for (int step = 0; step < r.total_steps; ++step) {
      CAPTURE(step, rates[step]);
      REQUIRE(std::isfinite(rates[step]));
      REQUIRE(rates[step] > 0.0f);          // every step learns something
      REQUIRE(rates[step] <= r.peak_lr);    // never above the peak
      if (step > 0 && step < r.warmup_steps) REQUIRE(rates[step] > rates[step - 1]);
      if (step > r.warmup_steps) REQUIRE(rates[step] < rates[step - 1]);
    }
    // The peak is reached exactly once at the end of the warm-up and once at the start of the decay.
    if (r.warmup_steps > 0) REQUIRE(rates[r.warmup_steps - 1] == r.peak_lr);
    REQUIRE(rates[r.warmup_steps] == r.peak_lr);
  }
}

TEST_CASE("one_cycle_lr: warmup_steps 0 is the decay alone; a run of one step is the peak", "[14.1]") {
  // No warm-up: the first step is the peak, the last peak / total_steps.
  REQUIRE(speedrun::one_cycle_lr(0, 8, 0, 0.5f) == 0.5f);
  REQUIRE(speedrun::one_cycle_lr(7, 8, 0, 0.5f) == 0.0625f);  // 0.5 * 1 / 8
  REQUIRE(speedrun::one_cycle_lr(3, 8, 0, 0.5f) == 0.3125f);  // 0.5 * 5 / 8
  // total_steps 1: warm-up must be 0, and the one step learns at the peak.
  REQUIRE(speedrun::one_cycle_lr(0, 1, 0, 0.37f) == 0.37f);
  // The longest warm-up: every step but the last rises; the last is the peak again.
  REQUIRE(speedrun::one_cycle_lr(0, 5, 4, 1.0f) == 0.25f);
  REQUIRE(speedrun::one_cycle_lr(3, 5, 4, 1.0f) == 1.0f);
  REQUIRE(speedrun::one_cycle_lr(4, 5, 4, 1.0f) == 1.0f);
}

TEST_CASE("one_cycle_lr refuses a step outside the run, a bad warm-up or length, a peak <= 0 or not finite",
          "[14.1]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Bad {
    int step, total_steps, warmup_steps;
    float peak_lr;
    const char* names;  // what the message must name
  };
  const Bad bad[] = {{0, 0, 0, 0.1f, "total_steps"},   {0, -3, 0, 0.1f, "total_steps"},
                     {0, 10, -1, 0.1f, "warmup_steps"}, {0, 10, 10, 0.1f, "warmup_steps"},
                     {0, 1, 1, 0.1f, "warmup_steps"},   {0, 10, 2, 0.0f, "peak_lr"},
                     {0, 10, 2, -0.1f, "peak_lr"},      {0, 10, 2, nan, "peak_lr"},
                     {0, 10, 2, inf, "peak_lr"},        {-1, 10, 2, 0.1f, "step"},
                     {10, 10, 2, 0.1f, "step"},         {11, 10, 0, 0.1f, "step"}};
  for (const Bad& b : bad) {
    CAPTURE(b.step, b.total_steps, b.warmup_steps, b.peak_lr);
    const std::string message =
        error_of([&] { speedrun::one_cycle_lr(b.step, b.total_steps, b.warmup_steps, b.peak_lr); });
    INFO("message: '" << message << "' (check_one_cycle's, called first)");
    REQUIRE(message.find("one_cycle_lr: ") == 0);
    REQUIRE(message.find(b.names) != std::string::npos);
    REQUIRE(message.find("TODO") == std::string::npos);
  }
  REQUIRE_NOTHROW(speedrun::one_cycle_lr(9, 10, 2, 0.1f));
}
