// Lesson 15's box task (given code, box_task.hpp): boxes packed into labels, the canvases and the
// box around their ink, the report (on your 15.7) and the picture.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>  // getpid

#include "box_task.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"

using deeper_cnns::Box;
using deeper_cnns::kCanvas;

namespace {

// n digits of 28x28 with random ink: a few bright strokes on a dim, noisy background.
course::Dataset random_digits(int n, uint64_t seed) {
  course::Dataset d;
  d.images = course::HostTensor({n, 1, 28, 28});
  d.labels.assign(size_t(n), 0);
  course::Rng rng(seed);
  for (int i = 0; i < n; ++i) {
    float* plane = d.images.data() + size_t(i) * 784;
    for (int p = 0; p < 784; ++p) plane[p] = rng.uniform(0.05f, 0.3f);
    const int strokes = 1 + rng.uniform_int(4);
    for (int s = 0; s < strokes; ++s) {
      const int r = 2 + rng.uniform_int(24), c0 = 2 + rng.uniform_int(12), len = 1 + rng.uniform_int(12);
      for (int c = c0; c < c0 + len; ++c) plane[r * 28 + c] = 1.0f;
    }
  }
  return d;
}

std::vector<float> fractions(Box b) {
  return {float(b.x0) / kCanvas, float(b.y0) / kCanvas, float(b.x1) / kCanvas, float(b.y1) / kCanvas};
}

}  // namespace

TEST_CASE("a box fits in a label and comes back whole", "[15-box_task]") {
  course::Rng rng(1);
  for (int k = 0; k < 2000; ++k) {
    const int x0 = rng.uniform_int(kCanvas), y0 = rng.uniform_int(kCanvas);
    const Box b{x0, y0, x0 + 1 + rng.uniform_int(kCanvas - x0), y0 + 1 + rng.uniform_int(kCanvas - y0)};
    REQUIRE(deeper_cnns::valid_box(b));
    const int label = deeper_cnns::pack_box(b);
    REQUIRE(label >= 0);
    const Box back = deeper_cnns::unpack_box(label);
    REQUIRE((back.x0 == b.x0 && back.y0 == b.y0 && back.x1 == b.x1 && back.y1 == b.y1));
    float t[4];
    deeper_cnns::box_targets(label, t);
    REQUIRE(t[0] == float(b.x0) / kCanvas);
    REQUIRE(t[3] == float(b.y1) / kCanvas);
  }
  CHECK_FALSE(deeper_cnns::valid_box({3, 3, 3, 9}));    // no width
  CHECK_FALSE(deeper_cnns::valid_box({0, 0, 65, 9}));   // past the canvas
  CHECK_FALSE(deeper_cnns::valid_box({-1, 0, 5, 9}));
}

TEST_CASE("box_canvases: each digit somewhere on its canvas, its box tight around the ink", "[15-box_task]") {
  const course::Dataset digits = random_digits(300, 7);
  const course::Dataset set = deeper_cnns::box_canvases(digits, 64, 0);
  REQUIRE(set.count() == 300);
  REQUIRE(set.images.dims() == std::vector<int>{300, 1, kCanvas, kCanvas});
  int left_edge = 0, right_edge = 0;
  for (int i = 0; i < set.count(); ++i) {
    CAPTURE(i);
    const float* c = set.images.data() + size_t(i) * kCanvas * kCanvas;
    const Box b = deeper_cnns::unpack_box(set.labels[size_t(i)]);
    REQUIRE(deeper_cnns::valid_box(b));
    bool ink_on[4] = {false, false, false, false};  // an ink pixel on each of the box's four edges
    int lit = 0;
    for (int y = 0; y < kCanvas; ++y)
      for (int x = 0; x < kCanvas; ++x) {
        const float v = c[y * kCanvas + x];
        REQUIRE(v >= 0.0f);
        REQUIRE(v <= 1.0f);
        REQUIRE(std::fabs(v * 255.0f - std::round(v * 255.0f)) < 1e-3f);  // whole 1/255 steps
        lit += v > 0;
        if (v < deeper_cnns::kInk) continue;
        REQUIRE((x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1));  // every ink pixel inside
        ink_on[0] |= x == b.x0, ink_on[1] |= y == b.y0, ink_on[2] |= x == b.x1 - 1, ink_on[3] |= y == b.y1 - 1;
      }
    REQUIRE((ink_on[0] && ink_on[1] && ink_on[2] && ink_on[3]));  // and no larger than it
    // The drawn square (the digit's noisy background is > 0 everywhere) is one of the allowed sizes.
    const int side = int(std::lround(std::sqrt(double(lit))));
    REQUIRE(side * side == lit);
    REQUIRE(side >= deeper_cnns::kMinSide);
    REQUIRE(side <= deeper_cnns::kMaxSide);
    left_edge += b.x0 < 8, right_edge += b.x1 > kCanvas - 8;
  }
  CHECK(left_edge > 0);  // placed all over the canvas, not in one spot
  CHECK(right_edge > 0);

  const course::Dataset again = deeper_cnns::box_canvases(digits, 64, 0);
  CHECK(again.labels == set.labels);
  CHECK(again.images.vec() == set.images.vec());
  CHECK(deeper_cnns::box_canvases(digits, 64, 1).labels != set.labels);  // another stream: other places
}

TEST_CASE("box_canvases: a digit without ink gets the drawn square; other images are refused", "[15-box_task]") {
  course::Dataset dim;
  dim.images = course::HostTensor({1, 1, 28, 28}, 0.2f);
  dim.labels = {0};
  const course::Dataset set = deeper_cnns::box_canvases(dim, 3, 0);
  const Box b = deeper_cnns::unpack_box(set.labels[0]);
  CHECK(b.x1 - b.x0 == b.y1 - b.y0);
  CHECK(b.x1 - b.x0 >= deeper_cnns::kMinSide);

  course::Dataset colour;
  colour.images = course::HostTensor({2, 3, 32, 32});
  colour.labels = {0, 1};
  CHECK_THROWS_AS(deeper_cnns::box_canvases(colour, 1, 0), course::Error);
  CHECK_THROWS_AS(deeper_cnns::box_canvases(course::Dataset{}, 1, 0), course::Error);
}

TEST_CASE("box_report adds up IoU and corner error; boxes.png is drawn, NaN outputs too", "[15-box_task]") {
  const std::vector<int> labels = {deeper_cnns::pack_box({0, 0, 16, 32}), deeper_cnns::pack_box({10, 10, 20, 20})};
  std::vector<float> outputs = fractions({0, 0, 32, 32});  // IoU 0.5, corner error 8
  for (float v : fractions({40, 40, 50, 50})) outputs.push_back(v);  // IoU 0, corner error 30 * sqrt(2)
  const deeper_cnns::BoxReport r = deeper_cnns::box_report(outputs.data(), labels);
  CHECK(r.count == 2);
  CHECK(r.hit_rate == Approx(0.5));
  CHECK(r.mean_iou == Approx(0.25));
  CHECK(r.corner_error == Approx((8.0 + 30.0 * std::sqrt(2.0)) / 2));

  course::Dataset set = deeper_cnns::box_canvases(random_digits(2, 9), 64, 0);
  set.labels = labels;
  outputs[5] = NAN;
  const auto dir = std::filesystem::temp_directory_path() / ("course_box_task_" + std::to_string(::getpid()));
  const std::string path = (dir / "boxes.png").string();
  deeper_cnns::write_boxes_png(path, set, outputs.data());
  CHECK(std::filesystem::file_size(path) > 100);
  std::filesystem::remove_all(dir);
}
