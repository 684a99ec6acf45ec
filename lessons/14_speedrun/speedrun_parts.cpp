// Lesson 14 (given): the loss and the update rule of the speedrun (speedrun_parts.hpp).
#include "speedrun_parts.hpp"

#include <memory>
#include <vector>

#include "course/error.hpp"
#include "first_kernels.hpp"
#include "mnist_gpu.hpp"
#include "speedrun.hpp"

namespace speedrun {

SmoothedSoftmaxCrossEntropy::SmoothedSoftmaxCrossEntropy(int classes, int max_batch, float smoothing)
    : SoftmaxCrossEntropy(classes, max_batch), smoothing_(smoothing) {
  check_smoothing("SmoothedSoftmaxCrossEntropy", max_batch, classes, smoothing);
}

void SmoothedSoftmaxCrossEntropy::forward(const float* logits, const int* labels, int batch) {
  check_batch(batch, "forward");
  smoothed_cross_entropy_gpu(logits, labels, row_loss_.data(), dlogits_.data(), batch, classes_, smoothing_, stream_);
}

void SmoothedSoftmaxCrossEntropy::backward(const int*, int batch) { check_batch(batch, "backward"); }

mnist_gpu::LossMaker smoothed_loss_maker(float smoothing) {
  return [smoothing](int classes, int max_batch) {
    return std::make_unique<SmoothedSoftmaxCrossEntropy>(classes, max_batch, smoothing);
  };
}

mnist_gpu::DeviceUpdateRule scheduled_rule(framework::OptimizerKind kind, Schedule schedule, int total_steps,
                                           int warmup_steps, float peak_lr) {
  using framework::OptimizerKind;
  if (kind != OptimizerKind::nesterov && kind != OptimizerKind::sgd && kind != OptimizerKind::adam)
    throw course::Error(std::string("the speedrun has no optimizer '") + framework::optimizer_name(kind) +
                        "' (expected nesterov, sgd or adam)");
  // The one-cycle rate of every step (your 14.1), in device memory: step t reads entry t - 1.
  std::shared_ptr<course::DeviceBuffer<float>> rates;
  if (schedule == Schedule::one_cycle) {
    check_one_cycle("scheduled_rule", 0, total_steps, warmup_steps, peak_lr);
    std::vector<float> each_step;
    for (int step = 0; step < total_steps; ++step)
      each_step.push_back(one_cycle_lr(step, total_steps, warmup_steps, peak_lr));
    rates = std::make_shared<course::DeviceBuffer<float>>(each_step);
  }
  mnist_gpu::DeviceUpdateRule rule;
  rule.kind = kind;
  rule.states = kind == OptimizerKind::adam ? 2 : 1;
  rule.update = [kind, rates, total_steps](float* w, const float* g, float* s1, float* s2, size_t n,
                                           const host_training::OptimizerConfig& c, int t, const float* rate,
                                           cudaStream_t stream) {
    // t counts the optimizer's steps from 1; the schedule counts from 0.
    if (t > total_steps)
      throw course::Error("scheduled_rule: step " + std::to_string(t) + " of a run of " +
                          std::to_string(total_steps) + " steps");
    const float* lr = rates ? rates->data() + (t - 1) : rate;
    if (kind == OptimizerKind::nesterov)
      nesterov_update_gpu(w, g, s1, n, lr, c.momentum, c.weight_decay, stream);
    else if (kind == OptimizerKind::sgd)
      first_kernels::sgd_momentum_update(w, g, s1, n, lr, c.momentum, c.weight_decay, stream);
    else
      mnist_gpu::adam_update(w, g, s1, s2, n, lr, c.beta1, c.beta2, c.eps, c.weight_decay, t, stream);
  };
  return rule;
}

}  // namespace speedrun
