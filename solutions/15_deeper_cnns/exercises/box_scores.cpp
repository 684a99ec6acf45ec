// Lesson 15, step 15.7: scoring a predicted box on the CPU.
#include <algorithm>
#include <cmath>

#include "course/error.hpp"
#include "deeper_cnns.hpp"

namespace deeper_cnns {

float box_iou(const float* pred, const float* truth) {
  const float width = pred[2] - pred[0], height = pred[3] - pred[1];
  if (!(width > 0.0f && height > 0.0f)) return 0.0f;  // covers nothing (a NaN fails the test too)
  const float shared_w = std::max(0.0f, std::min(pred[2], truth[2]) - std::max(pred[0], truth[0]));
  const float shared_h = std::max(0.0f, std::min(pred[3], truth[3]) - std::max(pred[1], truth[1]));
  const float shared = shared_w * shared_h;
  const float together = width * height + (truth[2] - truth[0]) * (truth[3] - truth[1]) - shared;
  return shared / together;
}

float corner_error(const float* pred, const float* truth, int canvas) {
  const float top_left = std::hypot(pred[0] - truth[0], pred[1] - truth[1]);
  const float bottom_right = std::hypot(pred[2] - truth[2], pred[3] - truth[3]);
  return 0.5f * (top_left + bottom_right) * float(canvas);
}

}  // namespace deeper_cnns
