// Lesson 06, step 06.1: max-pool with a stored argmax index, against lesson 01 (host_layers).
#include "pooling_test_support.hpp"

using namespace l06;
using course::test::random_vector;

TEST_CASE("06.1 argmax forward: y and the argmax indices equal lesson 01's exactly", "[06.1]") {
  uint64_t seed = 6100;
  for (const PoolShape& s : test_shapes()) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = random_vector(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    d.y.poison();
    d.argmax.poison();  // -1 everywhere
    pooling::maxpool_forward_argmax(s, d.x.data(), d.y.data(), d.argmax.data());
    require_same_values(d.y.to_host(), ref.y);
    require_equal(d.argmax.to_host(), ref.argmax, "argmax");

    // argmax == nullptr: y alone (the recompute variant's forward pass).
    d.y.poison();
    pooling::maxpool_forward_argmax(s, d.x.data(), d.y.data(), nullptr);
    require_same_values(d.y.to_host(), ref.y);
  }
}

TEST_CASE("06.1 argmax backward: dx equals lesson 01's, overlapping windows included", "[06.1]") {
  uint64_t seed = 6120;
  for (const PoolShape& s : test_shapes()) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = random_vector(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    d.argmax.upload(ref.argmax);  // lesson 01's indices: this tests the backward pass alone
    d.dx.poison();
    pooling::maxpool_backward_argmax(s, d.argmax.data(), d.dy.data(), d.dx.data());
    const std::vector<float> dx = d.dx.to_host();
    REQUIRE_ALL_CLOSE(dx, ref.dx, dx_atol(s, 1.0), 0.0);  // tolerance: see dx_atol
    require_mass_conserved(s, dx, dy, 1.0);
  }
}

TEST_CASE("06.1 argmax ties: only the first maximum of each window gets the gradient", "[06.1]") {
  uint64_t seed = 6140;
  for (const PoolShape& s : test_shapes(false)) {
    for (const TieInput& input : tie_inputs(s, ++seed)) {
      CAPTURE(seed);
      INFO(describe(s) << ", input: " << input.name);
      const std::vector<float> dy = random_vector(s.output_size(), seed + 1, kTieDyLo, kTieDyHi);
      const Reference ref = reference(s, input.x, dy);
      DeviceData d(s, input.x, dy);
      d.y.poison();
      d.argmax.poison();
      pooling::maxpool_forward_argmax(s, d.x.data(), d.y.data(), d.argmax.data());
      require_same_values(d.y.to_host(), ref.y);
      require_equal(d.argmax.to_host(), ref.argmax, "argmax");
      d.dx.poison();
      pooling::maxpool_backward_argmax(s, d.argmax.data(), d.dy.data(), d.dx.data());
      const std::vector<float> dx = d.dx.to_host();
      REQUIRE_ALL_CLOSE(dx, ref.dx, dx_atol(s, kTieDyHi), 0.0);
      require_mass_conserved(s, dx, dy, kTieDyHi);
      if (input.all_equal) REQUIRE_ALL_CLOSE(dx, all_equal_dx(s, dy), 0.0, 0.0);  // one term per input: exact
    }
  }
}

TEST_CASE("06.1 argmax backward agrees with finite differences (GPU forward + backward)", "[06.1]") {
  uint64_t seed = 6160;
  for (const PoolShape& s : fd_shapes()) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = tie_free(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    DeviceData d(s, x, dy);
    d.argmax.poison();
    d.y.poison();
    d.dx.poison();
    pooling::maxpool_forward_argmax(s, d.x.data(), d.y.data(), d.argmax.data());
    pooling::maxpool_backward_argmax(s, d.argmax.data(), d.dy.data(), d.dx.data());
    require_matches_finite_differences(s, x, dy, d.dx.to_host(), 1.0);
  }
}
