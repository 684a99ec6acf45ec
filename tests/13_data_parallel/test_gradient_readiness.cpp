// Lesson 13, step 13.3 (first part): when a layer list's gradients are final, checked against
// what the notices allow, counted on the host for random layer lists.
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "course_test.hpp"
#include "gradient_readiness.hpp"

using data_parallel::GradientReadiness;

namespace {

// A random layer list: `layers` layers, about a third of them with parameters (weight tensors
// numbered as the parameter store does: 0, 2, 4, ... in layer order, the bias after each).
std::vector<long> random_weights(std::mt19937& rng, int layers) {
  std::vector<long> weights;
  long next = 0;
  for (int i = 0; i < layers; ++i) {
    const bool has_parameters = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
    weights.push_back(has_parameters ? next : -1);
    if (has_parameters) next += 2;
  }
  return weights;
}

// The weights of the layers at positions >= first.
std::set<size_t> weights_from(const std::vector<long>& weights, size_t first) {
  std::set<size_t> out;
  for (size_t i = first; i < weights.size(); ++i)
    if (weights[i] >= 0) out.insert(size_t(weights[i]));
  return out;
}

}  // namespace

TEST_CASE("GradientReadiness: each layer once a pass, last first, as soon as the notices allow and never sooner",
          "[13.3]") {
  std::mt19937 rng(1313);
  for (int trial = 0; trial < 300; ++trial) {
    const int layers = std::uniform_int_distribution<int>(1, 14)(rng);
    const std::vector<long> weights = random_weights(rng, layers);
    CAPTURE(trial, weights);
    GradientReadiness readiness(weights);
    for (int pass = 0; pass < 3; ++pass) {  // a second and third pass report everything again
      CAPTURE(pass);
      std::vector<size_t> reported;
      const GradientReadiness::Report report = [&](size_t w) { reported.push_back(w); };
      readiness.pass_begins();
      // The backward pass, last layer first; some layers' starts are not heard (the loss's is never).
      for (int p = layers - 1; p >= 0; --p) {
        if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) continue;
        CAPTURE(p);
        readiness.backward_starts(size_t(p), report);
        // Exactly the layers after p are out, each once: everything final, nothing not yet.
        REQUIRE(std::set<size_t>(reported.begin(), reported.end()) == weights_from(weights, size_t(p) + 1));
        REQUIRE(reported.size() == weights_from(weights, size_t(p) + 1).size());
        if (std::uniform_int_distribution<int>(0, 4)(rng) == 0) {  // the same notice again: nothing new
          const size_t before = reported.size();
          readiness.backward_starts(size_t(p), report);
          REQUIRE(reported.size() == before);
        }
      }
      readiness.pass_ends(report);
      REQUIRE(std::set<size_t>(reported.begin(), reported.end()) == weights_from(weights, 0));
      REQUIRE(reported.size() == weights_from(weights, 0).size());
      REQUIRE(std::is_sorted(reported.rbegin(), reported.rend()));  // the last layer first
      readiness.pass_ends(report);  // a second end reports nothing more
      REQUIRE(reported.size() == weights_from(weights, 0).size());
    }
  }
}

TEST_CASE("GradientReadiness: a pass heard only at its end reports every layer then, last first", "[13.3]") {
  // conv, relu, pool, dense, relu, dense: weights 0, 2, 4 (the picture of gradient_readiness.hpp)
  GradientReadiness readiness({0, -1, -1, 2, -1, 4});
  std::vector<size_t> reported;
  const GradientReadiness::Report report = [&](size_t w) { reported.push_back(w); };
  readiness.pass_begins();
  readiness.backward_starts(5, report);
  REQUIRE(reported.empty());  // the last layer's own gradients are not final when its pass starts
  readiness.backward_starts(3, report);
  REQUIRE(reported == std::vector<size_t>{4});
  readiness.backward_starts(0, report);
  REQUIRE(reported == std::vector<size_t>{4, 2});
  readiness.pass_ends(report);
  REQUIRE(reported == std::vector<size_t>{4, 2, 0});

  reported.clear();
  readiness.pass_begins();
  readiness.pass_ends(report);
  REQUIRE(reported == std::vector<size_t>{4, 2, 0});
}

TEST_CASE("GradientReadiness refuses a position that is not a layer", "[13.3]") {
  GradientReadiness readiness({0, -1, 2});
  readiness.pass_begins();
  const GradientReadiness::Report report = [](size_t) {};
  REQUIRE_THROWS_AS(readiness.backward_starts(3, report), course::Error);
  REQUIRE_THROWS_AS(readiness.backward_starts(99, report), course::Error);
}
