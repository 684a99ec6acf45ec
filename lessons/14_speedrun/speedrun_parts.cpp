// Lesson 14 (given): the loss and the update rule of the speedrun (speedrun_parts.hpp).
#include "speedrun_parts.hpp"

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
                                           int warmup_steps) {
  using framework::OptimizerKind;
  if (kind != OptimizerKind::nesterov && kind != OptimizerKind::sgd && kind != OptimizerKind::adam)
    throw course::Error(std::string("the speedrun has no optimizer '") + framework::optimizer_name(kind) +
                        "' (expected nesterov, sgd or adam)");
  if (schedule == Schedule::one_cycle) check_one_cycle("scheduled_rule", 0, total_steps, warmup_steps, 1.0f);
  mnist_gpu::DeviceUpdateRule rule;
  rule.kind = kind;
  rule.states = kind == OptimizerKind::adam ? 2 : 1;
  rule.update = [kind, schedule, total_steps, warmup_steps](float* w, const float* g, float* s1, float* s2, size_t n,
                                                            const host_training::OptimizerConfig& c, int t,
                                                            cudaStream_t stream) {
    // t counts the optimizer's steps from 1; the schedule counts from 0.
    if (t > total_steps)
      throw course::Error("scheduled_rule: step " + std::to_string(t) + " of a run of " +
                          std::to_string(total_steps) + " steps");
    const float lr = schedule == Schedule::one_cycle ? one_cycle_lr(t - 1, total_steps, warmup_steps, c.lr) : c.lr;
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
