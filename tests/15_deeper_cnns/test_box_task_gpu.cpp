// Lesson 15's box task on the GPU (given code): the targets of a label, and the loss at the end of the
// network (your 15.4 inside it) against the formulas in double. Outputs poisoned, odd batch sizes.
#include <cmath>
#include <vector>

#include "box_loss.hpp"
#include "box_scores_reference.hpp"
#include "box_task.hpp"
#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "regression_reference.hpp"

using deeper_cnns::Box;
using deeper_cnns::kBoxOutputs;
using deeper_cnns::kCanvas;

TEST_CASE("box_targets_gpu gives each label's corners as fractions of the canvas", "[15-box_task_gpu]") {
  for (int batch : {1, 37, 70001}) {
    CAPTURE(batch);
    const std::vector<int> labels = box_test::random_labels(batch, 10 + uint64_t(batch));
    course::DeviceBuffer<int> d_labels(labels);
    course::DeviceBuffer<float> targets{size_t(batch) * kBoxOutputs + 3};
    targets.poison();
    deeper_cnns::box_targets_gpu(d_labels.data(), batch, targets.data(), nullptr);
    const std::vector<float> got = targets.to_host();
    for (int b = 0; b < batch; ++b) {
      const Box box = deeper_cnns::unpack_box(labels[size_t(b)]);
      const float want[4] = {box.x0 / 64.0f, box.y0 / 64.0f, box.x1 / 64.0f, box.y1 / 64.0f};
      for (int k = 0; k < 4; ++k) REQUIRE(got[size_t(b) * 4 + k] == want[k]);
    }
    for (size_t i = size_t(batch) * 4; i < got.size(); ++i) REQUIRE(std::isnan(got[i]));  // nothing past the batch
  }
}

TEST_CASE("BoxLoss: each example's mean cost and the gradient of the batch's mean, from the labels' boxes",
          "[15-box_task_gpu]") {
  using deeper_cnns::RegressionLoss;
  const int max_batch = 300;
  for (RegressionLoss kind : {RegressionLoss::squared, RegressionLoss::smooth_l1})
    for (int batch : {1, 129, 300}) {
      CAPTURE(int(kind), batch);
      const double beta = 0.05;
      const std::vector<int> labels = box_test::random_labels(batch, 40 + uint64_t(batch));
      const std::vector<float> outputs = course::random_uniform(size_t(batch) * 4, 50 + uint64_t(batch), -0.2f, 1.2f);
      deeper_cnns::BoxLoss loss(kind, float(beta), kBoxOutputs, max_batch);
      course::DeviceBuffer<int> d_labels(labels);
      course::DeviceBuffer<float> d_outputs(outputs);
      CUDA_CHECK(cudaMemset(const_cast<float*>(loss.row_loss()), 0xff, max_batch * sizeof(float)));  // NaN
      CUDA_CHECK(cudaMemset(loss.logits_grad(), 0xff, size_t(max_batch) * 4 * sizeof(float)));
      loss.forward(d_outputs.data(), d_labels.data(), batch);
      loss.backward(d_labels.data(), batch);
      std::vector<float> rows(static_cast<size_t>(batch)), grad(static_cast<size_t>(batch) * 4);
      CUDA_CHECK(cudaMemcpy(rows.data(), loss.row_loss(), rows.size() * sizeof(float), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(grad.data(), loss.logits_grad(), grad.size() * sizeof(float), cudaMemcpyDeviceToHost));
      for (int b = 0; b < batch; ++b) {
        float t[4];
        deeper_cnns::box_targets(labels[size_t(b)], t);
        double row = 0;
        for (int k = 0; k < 4; ++k) {
          const double d = double(outputs[size_t(b) * 4 + k]) - double(t[k]);
          row += regression_test::cost(kind, d, beta) / 4;
          const double want = (kind == RegressionLoss::squared ? 2 * d
                               : std::fabs(d) < beta          ? d / beta
                                                              : (d > 0 ? 1.0 : -1.0)) /
                              (4.0 * batch);
          REQUIRE(grad[size_t(b) * 4 + k] == Approx(want).epsilon(1e-4).margin(1e-9));
        }
        REQUIRE(rows[size_t(b)] == Approx(row).epsilon(1e-4).margin(1e-9));
      }
    }
  CHECK_THROWS_AS(deeper_cnns::BoxLoss(RegressionLoss::squared, 0.05f, 10, 8), course::Error);  // not a box
  CHECK_THROWS_AS(deeper_cnns::BoxLoss(RegressionLoss::smooth_l1, 0.0f, 4, 8), course::Error);  // beta 0
  deeper_cnns::BoxLoss loss(RegressionLoss::squared, 0.05f, kBoxOutputs, 8);
  CHECK_THROWS_AS(loss.forward(nullptr, nullptr, 9), course::Error);  // past max_batch
}
