#pragma once
// Lesson 15's tests: a box's IoU and corner error written out in double (15.7's references), and
// random boxes on the canvas packed into labels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "box_task.hpp"
#include "course/rng.hpp"

namespace box_test {

inline double iou(const double* p, const double* t) {
  const double w = p[2] - p[0], h = p[3] - p[1];
  if (!(w > 0 && h > 0)) return 0;
  const double sw = std::max(0.0, std::min(p[2], t[2]) - std::max(p[0], t[0]));
  const double sh = std::max(0.0, std::min(p[3], t[3]) - std::max(p[1], t[1]));
  return sw * sh / (w * h + (t[2] - t[0]) * (t[3] - t[1]) - sw * sh);
}

inline double corner_error(const double* p, const double* t, int canvas) {
  return 0.5 * (std::hypot(p[0] - t[0], p[1] - t[1]) + std::hypot(p[2] - t[2], p[3] - t[3])) * canvas;
}

// n labels of random boxes, each at least a pixel wide and tall, anywhere on the canvas.
inline std::vector<int> random_labels(int n, uint64_t seed) {
  using deeper_cnns::kCanvas;
  course::Rng rng(seed);
  std::vector<int> labels(static_cast<size_t>(n));
  for (int& label : labels) {
    const int x0 = rng.uniform_int(kCanvas - 1), y0 = rng.uniform_int(kCanvas - 1);
    label = deeper_cnns::pack_box(
        {x0, y0, x0 + 1 + rng.uniform_int(kCanvas - x0), y0 + 1 + rng.uniform_int(kCanvas - y0)});
  }
  return labels;
}

}  // namespace box_test
