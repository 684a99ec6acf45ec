// Lesson 15 (given): the box task's loss (box_loss.hpp).
#include "box_loss.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "box_task.hpp"
#include "course/error.hpp"

namespace deeper_cnns {

BoxLoss::BoxLoss(RegressionLoss kind, float beta, int outputs, int max_batch)
    : kind_(kind), beta_(beta), max_batch_(max_batch) {
  if (outputs != kBoxOutputs)
    throw course::Error("the box task's network must end with " + std::to_string(kBoxOutputs) +
                        " outputs (x0, y0, x1, y1), this one ends with " + std::to_string(outputs));
  check_regression("BoxLoss", kind, std::max(max_batch, 1), outputs, beta);
  if (max_batch < 1) throw course::Error("BoxLoss: max_batch must be >= 1");
  targets_ = course::DeviceBuffer<float>(size_t(max_batch) * kBoxOutputs);
  rows_ = course::DeviceBuffer<float>(size_t(max_batch));
  grad_ = course::DeviceBuffer<float>(size_t(max_batch) * kBoxOutputs);
}

void BoxLoss::check_batch(int batch, const char* what) const {
  if (observer_) observer_->pass_starts("loss", std::strcmp(what, "backward") == 0);
  if (batch < 1 || batch > max_batch_)
    throw course::Error(std::string("box loss ") + what + ": batch " + std::to_string(batch) + " outside 1.." +
                        std::to_string(max_batch_));
}

void BoxLoss::forward(const float* outputs, const int* labels, int batch) {
  check_batch(batch, "forward");
  box_targets_gpu(labels, batch, targets_.data(), stream_);
  regression_loss_gpu(kind_, outputs, targets_.data(), batch, kBoxOutputs, beta_, rows_.data(), grad_.data(), stream_);
  scale_rows_gpu(rows_.data(), batch, float(batch), stream_);  // a row's share of the batch's mean -> its own mean
}

void BoxLoss::backward(const int* labels, int batch) {
  (void)labels;
  check_batch(batch, "backward");  // the gradient is already in logits_grad()
}

RegressionLoss regression_loss_by_name(const std::string& name) {
  if (name == "smooth_l1") return RegressionLoss::smooth_l1;
  if (name == "squared") return RegressionLoss::squared;
  throw course::Error("unknown regression loss '" + name + "' (expected smooth_l1 or squared)");
}

const char* regression_loss_name(RegressionLoss kind) {
  return kind == RegressionLoss::smooth_l1 ? "smooth_l1" : "squared";
}

}  // namespace deeper_cnns
