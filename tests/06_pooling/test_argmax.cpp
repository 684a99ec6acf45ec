// Lesson 06, step 06.1: max-pool with a stored argmax index, against lesson 01 (host_layers).
#include "pooling_test_support.hpp"

using namespace l06;
using course::test::random_vector;

namespace {
const Variant kArgmax{
    [](const PoolShape& s, DeviceData& d) { pooling::maxpool_forward_argmax(s, d.x.data(), d.y.data(), d.argmax.data()); },
    [](const PoolShape& s, DeviceData& d) { pooling::maxpool_backward_argmax(s, d.argmax.data(), d.dy.data(), d.dx.data()); },
    [](const PoolShape&, DeviceData& d, const Reference& ref) { d.argmax.upload(ref.argmax); },
    [](const PoolShape&, DeviceData& d, const Reference& ref) { require_equal(d.argmax.to_host(), ref.argmax, "argmax"); },
};
}  // namespace

TEST_CASE("06.1 argmax forward: y and the argmax indices equal lesson 01's exactly", "[06.1]") {
  check_forward_matches_lesson01(kArgmax, 6100);
}

TEST_CASE("06.1 argmax forward with argmax == nullptr: y alone (the recompute variant's forward)", "[06.1]") {
  uint64_t seed = 6110;
  for (const PoolShape& s : test_shapes()) {
    ++seed;
    COURSE_INPUT_SEED(seed);
    INFO(describe(s));
    const std::vector<float> x = random_vector(s.input_size(), seed);
    DeviceData d(s, x, std::vector<float>(s.output_size(), 0.0f));
    d.y.poison();
    pooling::maxpool_forward_argmax(s, d.x.data(), d.y.data(), nullptr);
    require_same_values(d.y.to_host(), reference(s, x, std::vector<float>(s.output_size(), 0.0f)).y, s);
  }
}

TEST_CASE("06.1 argmax backward: dx equals lesson 01's, overlapping windows included", "[06.1]") {
  check_backward_matches_lesson01(kArgmax, 6120);
}

TEST_CASE("06.1 argmax ties: only the first maximum of each window gets the gradient", "[06.1]") {
  check_tie_rule(kArgmax, 6140);
}

TEST_CASE("06.1 argmax backward agrees with finite differences (GPU forward + backward)", "[06.1]") {
  check_finite_differences(kArgmax, 6160);
}
