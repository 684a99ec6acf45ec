// Lesson 06, step 06.2: max-pool with a 0/1 mask (stride >= window), against lesson 01.
#include <string>

#include "pooling_test_support.hpp"

using namespace l06;
using course::test::random_vector;

TEST_CASE("06.2 mask forward: y equals lesson 01's, mask is 1 exactly at its argmax", "[06.2]") {
  uint64_t seed = 6200;
  for (const PoolShape& s : non_overlapping(test_shapes())) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = random_vector(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    d.y.poison();
    d.mask.poison();  // 0xFF: neither 0 nor 1, so an unwritten byte fails
    pooling::maxpool_forward_mask(s, d.x.data(), d.y.data(), d.mask.data());
    require_same_values(d.y.to_host(), ref.y);
    require_equal(d.mask.to_host(), mask_from_argmax(s, ref.argmax), "mask");
  }
}

TEST_CASE("06.2 mask backward: dx equals lesson 01's", "[06.2]") {
  uint64_t seed = 6220;
  for (const PoolShape& s : non_overlapping(test_shapes())) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = random_vector(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    d.mask.upload(mask_from_argmax(s, ref.argmax));  // the expected mask: tests backward alone
    d.dx.poison();
    pooling::maxpool_backward_mask(s, d.mask.data(), d.dy.data(), d.dx.data());
    const std::vector<float> dx = d.dx.to_host();
    // Windows do not overlap: each dx is one dy or 0, so the tolerance is 0 in practice.
    REQUIRE_ALL_CLOSE(dx, ref.dx, dx_atol(s, 1.0), 0.0);
    require_mass_conserved(s, dx, dy, 1.0);
  }
}

TEST_CASE("06.2 mask ties: only the first maximum of each window is 1 and gets the gradient", "[06.2]") {
  uint64_t seed = 6240;
  for (const PoolShape& s : non_overlapping(test_shapes(false))) {
    for (const TieInput& input : tie_inputs(s, ++seed)) {
      CAPTURE(seed);
      INFO(describe(s) << ", input: " << input.name);
      const std::vector<float> dy = random_vector(s.output_size(), seed + 1, kTieDyLo, kTieDyHi);
      const Reference ref = reference(s, input.x, dy);
      DeviceData d(s, input.x, dy);
      d.y.poison();
      d.mask.poison();
      pooling::maxpool_forward_mask(s, d.x.data(), d.y.data(), d.mask.data());
      require_same_values(d.y.to_host(), ref.y);
      require_equal(d.mask.to_host(), mask_from_argmax(s, ref.argmax), "mask");
      d.dx.poison();
      pooling::maxpool_backward_mask(s, d.mask.data(), d.dy.data(), d.dx.data());
      const std::vector<float> dx = d.dx.to_host();
      REQUIRE_ALL_CLOSE(dx, ref.dx, dx_atol(s, kTieDyHi), 0.0);
      require_mass_conserved(s, dx, dy, kTieDyHi);
      if (input.all_equal) REQUIRE_ALL_CLOSE(dx, all_equal_dx(s, dy), 0.0, 0.0);  // one term per input: exact
    }
  }
}

TEST_CASE("06.2 mask backward agrees with finite differences (GPU forward + backward)", "[06.2]") {
  uint64_t seed = 6260;
  for (const PoolShape& s : non_overlapping(fd_shapes())) {
    ++seed;
    CAPTURE(seed);
    INFO(describe(s));
    const std::vector<float> x = tie_free(s.input_size(), seed);
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    DeviceData d(s, x, dy);
    d.y.poison();
    d.mask.poison();
    d.dx.poison();
    pooling::maxpool_forward_mask(s, d.x.data(), d.y.data(), d.mask.data());
    pooling::maxpool_backward_mask(s, d.mask.data(), d.dy.data(), d.dx.data());
    require_matches_finite_differences(s, x, dy, d.dx.to_host(), 1.0);
  }
}

TEST_CASE("06.2 mask variant rejects overlapping windows with a clear error", "[06.2]") {
  const std::vector<PoolShape> shapes = test_shapes(false);
  int overlapping = 0;
  for (const PoolShape& s : shapes) {
    if (!pooling::windows_overlap(s)) continue;
    ++overlapping;
    INFO(describe(s));
    DeviceData d(s, std::vector<float>(s.input_size(), 0.0f), std::vector<float>(s.output_size(), 0.0f));
    for (int pass = 0; pass < 2; ++pass) {
      std::string message;
      try {
        if (pass == 0)
          pooling::maxpool_forward_mask(s, d.x.data(), d.y.data(), d.mask.data());
        else
          pooling::maxpool_backward_mask(s, d.mask.data(), d.dy.data(), d.dx.data());
      } catch (const course::Error& e) {
        message = e.what();
      }
      INFO("error message: '" << message << "'");
      CHECK(message.find("overlap") != std::string::npos);
    }
  }
  REQUIRE(overlapping >= 3);  // the shape list does hold overlapping cases
}
