// Lesson 15, step 15.7 on the GPU: the boxes found counted against the IoU in double, each row of
// odd batches (more rows than one grid's threads), near and far boxes, boxes covering nothing and NaN;
// the count added to what is there; every prediction written.
#include <cmath>
#include <vector>

#include "box_scores_reference.hpp"
#include "box_task.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

using deeper_cnns::kBoxOutputs;
using deeper_cnns::kCanvas;

namespace {


// Predictions near their labels' boxes (some found, some not), some covering nothing, some NaN.
std::vector<float> predictions_near(const std::vector<int>& labels, uint64_t seed) {
  course::Rng rng(seed);
  std::vector<float> p(labels.size() * kBoxOutputs);
  for (size_t i = 0; i < labels.size(); ++i) {
    deeper_cnns::box_targets(labels[i], p.data() + i * kBoxOutputs);
    for (int k = 0; k < kBoxOutputs; ++k) p[i * kBoxOutputs + k] += rng.uniform(-0.05f, 0.05f);
    if (i % 17 == 3) std::swap(p[i * kBoxOutputs], p[i * kBoxOutputs + 2]);
    if (i % 29 == 5) p[i * kBoxOutputs + 1] = NAN;
  }
  return p;
}

}  // namespace

TEST_CASE("count_box_hits_gpu counts the rows with IoU >= 0.5, each once", "[15.7]") {
  for (int batch : {1, 37, 300001}) {
    CAPTURE(batch);
    const std::vector<int> labels = box_test::random_labels(batch, 20 + uint64_t(batch));
    const std::vector<float> outputs = predictions_near(labels, 30 + uint64_t(batch));
    int want = 5;  // added to what is there
    for (int b = 0; b < batch; ++b) {
      float t[4];
      deeper_cnns::box_targets(labels[size_t(b)], t);
      double pd[4], td[4];
      for (int k = 0; k < 4; ++k) pd[k] = outputs[size_t(b) * 4 + k], td[k] = t[k];
      want += box_test::iou(pd, td) >= 0.5;
    }
    course::DeviceBuffer<int> d_labels(labels), predictions(std::vector<int>(size_t(batch), -7)),
        hits(std::vector<int>{5});
    course::DeviceBuffer<float> d_outputs(outputs);
    deeper_cnns::count_box_hits_gpu(d_outputs.data(), d_labels.data(), batch, kBoxOutputs, predictions.data(),
                                    hits.data(), nullptr);
    CHECK(hits.to_host()[0] == want);
    if (batch > 1) {  // the cases hold hits and misses
      CHECK(want - 5 > batch / 10);
      CHECK(want - 5 < batch);
    }
    for (int p : predictions.to_host()) REQUIRE(p != -7);  // every row's prediction written (given)
  }
  course::DeviceBuffer<int> one{1};
  CHECK_THROWS_AS(deeper_cnns::count_box_hits_gpu(nullptr, nullptr, 4, 10, one.data(), one.data(), nullptr),
                  course::Error);  // ten outputs are not a box
}
