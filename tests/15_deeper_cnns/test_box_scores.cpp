// Lesson 15, step 15.7 on the CPU: a box's IoU and corner error, by hand and against the formulas in
// double on random boxes (overlapping, apart, inside one another, covering nothing, NaN).
#include <cmath>
#include <vector>

#include "box_scores_reference.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

namespace {
// A box of whole pixels on a 64-pixel canvas, as fractions.
std::vector<float> box(int x0, int y0, int x1, int y1) { return {x0 / 64.0f, y0 / 64.0f, x1 / 64.0f, y1 / 64.0f}; }
}  // namespace

TEST_CASE("box_iou and corner_error by hand", "[15.7]") {
  const std::vector<float> truth = box(0, 0, 16, 32);  // [0, .25] x [0, .5]
  CHECK(deeper_cnns::box_iou(truth.data(), truth.data()) == Approx(1.0f));
  CHECK(deeper_cnns::corner_error(truth.data(), truth.data(), 64) == Approx(0.0f).margin(1e-6));
  // Twice as wide: shares all of the true box, covers twice its area.
  const std::vector<float> wide = box(0, 0, 32, 32);
  CHECK(deeper_cnns::box_iou(wide.data(), truth.data()) == Approx(0.5f));
  CHECK(deeper_cnns::corner_error(wide.data(), truth.data(), 64) == Approx(8.0f));  // (0 + 16) / 2 pixels
  // Both corners moved 3 right and 4 down: 5 pixels each; shared 13 x 28 = 364 of 512 + 512 - 364.
  const std::vector<float> moved = box(3, 4, 19, 36);
  CHECK(deeper_cnns::corner_error(moved.data(), truth.data(), 64) == Approx(5.0f));
  CHECK(deeper_cnns::corner_error(moved.data(), truth.data(), 128) == Approx(10.0f));  // the canvas's pixels
  CHECK(deeper_cnns::box_iou(moved.data(), truth.data()) == Approx(364.0f / 660.0f));
  // Apart, touching at an edge, inside out, empty, NaN: nothing shared.
  const std::vector<float> apart = box(40, 40, 50, 50), touching = box(16, 0, 30, 32);
  CHECK(deeper_cnns::box_iou(apart.data(), truth.data()) == 0.0f);
  CHECK(deeper_cnns::box_iou(touching.data(), truth.data()) == 0.0f);
  const std::vector<float> inside_out = {0.25f, 0.5f, 0.0f, 0.0f}, flat = {0.1f, 0.2f, 0.2f, 0.2f};
  CHECK(deeper_cnns::box_iou(inside_out.data(), truth.data()) == 0.0f);  // it would "share" 0.25 x 0.5
  CHECK(deeper_cnns::box_iou(flat.data(), truth.data()) == 0.0f);
  for (int k = 0; k < 4; ++k) {
    std::vector<float> nan = truth;
    nan[size_t(k)] = NAN;
    CHECK(deeper_cnns::box_iou(nan.data(), truth.data()) == 0.0f);
  }
  // Inside the true box: its own area over the true one's.
  const std::vector<float> inner = box(4, 8, 12, 16);
  CHECK(deeper_cnns::box_iou(inner.data(), truth.data()) == Approx(64.0f / 512.0f));
}

TEST_CASE("box_iou and corner_error equal the formulas in double on random boxes", "[15.7]") {
  course::Rng rng(1570);
  int overlapping = 0;
  for (int k = 0; k < 20000; ++k) {
    double t[4], p[4];
    t[0] = rng.uniform(0.0f, 0.8f), t[1] = rng.uniform(0.0f, 0.8f);
    t[2] = t[0] + rng.uniform(0.02f, 0.2f), t[3] = t[1] + rng.uniform(0.02f, 0.2f);
    for (int i = 0; i < 4; ++i) p[i] = t[i] + rng.uniform(-0.15f, 0.15f);
    if (k % 7 == 0) std::swap(p[0], p[2]);  // some cover nothing
    const float pf[4] = {float(p[0]), float(p[1]), float(p[2]), float(p[3])};
    const float tf[4] = {float(t[0]), float(t[1]), float(t[2]), float(t[3])};
    double pd[4], td[4];
    for (int i = 0; i < 4; ++i) pd[i] = pf[i], td[i] = tf[i];
    const double want = box_test::iou(pd, td);
    overlapping += want > 0;
    CAPTURE(k, pd[0], pd[1], pd[2], pd[3], td[0], td[1], td[2], td[3]);
    REQUIRE(deeper_cnns::box_iou(pf, tf) == Approx(want).epsilon(1e-4).margin(1e-6));
    REQUIRE(deeper_cnns::corner_error(pf, tf, 64) == Approx(box_test::corner_error(pd, td, 64)).epsilon(1e-5));
  }
  CHECK(overlapping > 5000);  // many overlap, many do not
  CHECK(overlapping < 20000);
}
