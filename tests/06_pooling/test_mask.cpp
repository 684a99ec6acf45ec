// Lesson 06, step 06.2: max-pool with a 0/1 mask (stride >= window), against lesson 01.
#include <string>

#include "pooling_test_support.hpp"

using namespace l06;

namespace {
const Variant kMask{
    [](const PoolShape& s, DeviceData& d) { pooling::maxpool_forward_mask(s, d.x.data(), d.y.data(), d.mask.data()); },
    [](const PoolShape& s, DeviceData& d) { pooling::maxpool_backward_mask(s, d.mask.data(), d.dy.data(), d.dx.data()); },
    [](const PoolShape& s, DeviceData& d, const Reference& ref) { d.mask.upload(mask_from_argmax(s, ref.argmax)); },
    [](const PoolShape& s, DeviceData& d, const Reference& ref) {
      require_equal(d.mask.to_host(), mask_from_argmax(s, ref.argmax), "mask");
    },
    true,
};
}  // namespace

TEST_CASE("06.2 mask forward: y equals lesson 01's, mask is 1 exactly at its argmax", "[06.2]") {
  check_forward_matches_lesson01(kMask, 6200);
}

TEST_CASE("06.2 mask backward: dx equals lesson 01's", "[06.2]") {
  // Windows do not overlap: each dx is one dy or 0, so the tolerance is 0 in practice.
  check_backward_matches_lesson01(kMask, 6220);
}

TEST_CASE("06.2 mask ties: only the first maximum of each window is 1 and gets the gradient", "[06.2]") {
  check_tie_rule(kMask, 6240);
}

TEST_CASE("06.2 mask backward agrees with finite differences (GPU forward + backward)", "[06.2]") {
  check_finite_differences(kMask, 6260);
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
