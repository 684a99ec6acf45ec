// Lesson 06, step 06.3: max-pool backward that recomputes each window's choice from x.
#include "pooling_test_support.hpp"

using namespace l06;

namespace {
// No forward of its own (y comes from the argmax variant's forward with argmax == nullptr) and
// no state: backward reads x.
const Variant kRecompute{
    nullptr,
    [](const PoolShape& s, DeviceData& d) { pooling::maxpool_backward_recompute(s, d.x.data(), d.dy.data(), d.dx.data()); },
    nullptr,
    nullptr,
};
}  // namespace

TEST_CASE("06.3 recompute backward: dx equals lesson 01's, overlapping windows included", "[06.3]") {
  check_backward_matches_lesson01(kRecompute, 6300);
}

TEST_CASE("06.3 recompute ties: only the first maximum of each window gets the gradient", "[06.3]") {
  check_tie_rule(kRecompute, 6340);
}

TEST_CASE("06.3 recompute backward agrees with finite differences", "[06.3]") {
  check_finite_differences(kRecompute, 6360);
}
