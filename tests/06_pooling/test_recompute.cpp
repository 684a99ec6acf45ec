// Lesson 06, step 06.3: max-pool backward that recomputes each window's choice from x.
#include "pooling_test_support.hpp"

using namespace l06;
using course::test::random_vector;

TEST_CASE("06.3 recompute backward: dx equals lesson 01's, overlapping windows included", "[06.3]") {
  uint64_t seed = 6300;
  for (const PoolShape& s : test_shapes()) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = random_vector(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    d.dx.poison();
    pooling::maxpool_backward_recompute(s, d.x.data(), d.dy.data(), d.dx.data());
    const std::vector<float> dx = d.dx.to_host();
    REQUIRE_ALL_CLOSE(dx, ref.dx, dx_atol(s, 1.0), 0.0);  // tolerance: see dx_atol
    require_mass_conserved(s, dx, dy, 1.0);
  }
}

TEST_CASE("06.3 recompute ties: only the first maximum of each window gets the gradient", "[06.3]") {
  uint64_t seed = 6340;
  for (const PoolShape& s : test_shapes(false)) {
    for (const TieInput& input : tie_inputs(s, ++seed)) {
      CAPTURE(seed);
      INFO(describe(s) << ", input: " << input.name);
      const std::vector<float> dy = random_vector(s.output_size(), seed + 1, kTieDyLo, kTieDyHi);
      const Reference ref = reference(s, input.x, dy);
      DeviceData d(s, input.x, dy);
      d.dx.poison();
      pooling::maxpool_backward_recompute(s, d.x.data(), d.dy.data(), d.dx.data());
      const std::vector<float> dx = d.dx.to_host();
      REQUIRE_ALL_CLOSE(dx, ref.dx, dx_atol(s, kTieDyHi), 0.0);
      require_mass_conserved(s, dx, dy, kTieDyHi);
      if (input.all_equal) REQUIRE_ALL_CLOSE(dx, all_equal_dx(s, dy), 0.0, 0.0);  // one term per input: exact
    }
  }
}

TEST_CASE("06.3 recompute backward agrees with finite differences", "[06.3]") {
  uint64_t seed = 6360;
  for (const PoolShape& s : fd_shapes()) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = tie_free(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    DeviceData d(s, x, dy);
    d.dx.poison();
    pooling::maxpool_backward_recompute(s, d.x.data(), d.dy.data(), d.dx.data());
    require_matches_finite_differences(s, x, dy, d.dx.to_host(), 1.0);
  }
}
