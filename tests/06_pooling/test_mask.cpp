// Lesson 06, step 06.2: max-pool with a 0/1 mask (stride >= window), against lesson 01.
#include <algorithm>
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

TEST_CASE("06.2 mask backward reads no dy for inputs no window covers (memory after dy holds NaN)", "[06.2]") {
  // Inputs in the rows and columns the last window does not reach have (h / stride, w / stride)
  // past the last output: in the last plane that index lies past the end of dy. The memory
  // after dy is NaN here, so a kernel that reads it before checking "covered" (mask 0 * NaN)
  // writes NaN where dx must be 0.
  const std::vector<PoolShape> shapes = {
      {1, 1, 5, 5, 2, 2},   // last row and column not reached
      {2, 3, 7, 9, 2, 3},   // gaps between windows and an unreached tail
      {1, 2, 11, 4, 3, 3},  // 2 rows dropped at the bottom
  };
  uint64_t seed = 6280;
  for (const PoolShape& s : shapes) {
    INFO(describe(s));
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = course::test::random_vector(s.input_size(), seed);
    const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    // Every index a kernel could form from an input: (plane*OH + h/stride)*OW + w/stride.
    const size_t planes = size_t(s.batch) * s.channels;
    const size_t furthest = ((planes - 1) * s.out_h() + size_t(s.height - 1) / s.stride) * s.out_w() +
                            size_t(s.width - 1) / s.stride;
    REQUIRE(furthest >= dy.size());  // the shape does reach past dy
    std::vector<float> dy_then_nan = course::test::nan_vector(furthest + 1);
    std::copy(dy.begin(), dy.end(), dy_then_nan.begin());
    DeviceData d(s, x, dy_then_nan);
    d.mask.upload(mask_from_argmax(s, ref.argmax));  // lesson 01's choice: backward is tested alone
    d.dx.poison();
    pooling::maxpool_backward_mask(s, d.mask.data(), d.dy.data(), d.dx.data());
    const std::vector<float> dx = d.dx.to_host();
    REQUIRE_ALL_CLOSE(dx, ref.dx, 0.0, 0.0);  // one dy or 0 per input: exact
  }
}
