// The framework's CPU optimizer: the rule of the run's kind (a later rule replacing an earlier one),
// its state arrays and its refusals; the update itself is each lesson's step to test.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "framework/host_optimizer.hpp"

using framework::HostOptimizer;
using framework::HostUpdateRule;
using framework::OptimizerConfig;
using framework::OptimizerKind;

namespace {

// A rule that writes `mark` into every w and counts the step into state1 (so a test can see which
// rule ran, on which elements, how often).
HostUpdateRule marking_rule(OptimizerKind kind, int states, float mark) {
  return HostUpdateRule{kind, states,
                        [mark](float* w, const float*, float* s1, float* s2, size_t n, const OptimizerConfig&, int t) {
                          for (size_t i = 0; i < n; ++i) {
                            w[i] = mark;
                            s1[i] = float(t);
                            if (s2) s2[i] = -float(t);
                          }
                        }};
}

std::vector<framework::Parameter> two_parameters() {
  return {{"a", {3}, {1.f, 2.f, 3.f}, {0.f, 0.f, 0.f}}, {"b", {2, 2}, {4.f, 5.f, 6.f, 7.f}, {0.f, 0.f, 0.f, 0.f}}};
}

}  // namespace

TEST_CASE("HostOptimizer runs the rule of the run's kind; a later rule for a kind replaces an earlier one",
          "[host_optimizer]") {
  const HostUpdateRule sgd = marking_rule(OptimizerKind::sgd, 1, 1.f), adam = marking_rule(OptimizerKind::adam, 2, 2.f),
                       later_sgd = marking_rule(OptimizerKind::sgd, 1, 3.f);
  OptimizerConfig config;
  config.kind = OptimizerKind::sgd, config.lr = 0.1f;
  std::vector<framework::Parameter> params = two_parameters();
  HostOptimizer optimizer(config, params, {&sgd, &adam, nullptr, &later_sgd});
  optimizer.step(params);
  optimizer.step(params, [](size_t count, const std::function<void(size_t, size_t)>& body) {
    body(0, count / 2), body(count / 2, count);  // in two ranges: every element once
  });
  REQUIRE(optimizer.steps() == 2);
  for (const auto& p : params)
    for (float w : p.value) REQUIRE(w == 3.f);  // the later sgd rule, on every element
  REQUIRE(HostOptimizer::state_arrays(config, {&sgd, &adam}) == 1);
  config.kind = OptimizerKind::adam;
  REQUIRE(HostOptimizer::state_arrays(config, {&sgd, &adam}) == 2);
}

TEST_CASE("HostOptimizer refuses a kind it has no rule for, naming those it has, and a rate that is not positive",
          "[host_optimizer]") {
  const HostUpdateRule sgd = marking_rule(OptimizerKind::sgd, 1, 1.f), adam = marking_rule(OptimizerKind::adam, 2, 2.f);
  std::vector<framework::Parameter> params = two_parameters();
  OptimizerConfig config;
  config.kind = OptimizerKind::nesterov, config.lr = 0.1f;
  try {
    HostOptimizer optimizer(config, params, {&sgd, &adam, &sgd});
    FAIL("a kind without a rule was accepted");
  } catch (const course::Error& e) {
    REQUIRE(std::string(e.what()) == "this trainer has no optimizer 'nesterov' (expected sgd or adam)");
  }
  config.kind = OptimizerKind::sgd;
  for (float lr : {0.f, -1.f, std::numeric_limits<float>::quiet_NaN()}) {
    config.lr = lr;
    CAPTURE(lr);
    REQUIRE_THROWS_AS(HostOptimizer(config, params, {&sgd}), course::Error);
  }
  config.lr = 0.1f;
  HostOptimizer optimizer(config, params, {&sgd});
  params.pop_back();  // not the list it was made for
  REQUIRE_THROWS_AS(optimizer.step(params), course::Error);
}
