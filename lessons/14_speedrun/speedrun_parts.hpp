#pragma once
// Lesson 14 (given): your 14.1, 14.2 and 14.4 as pieces lesson 08's GPU network and optimizer take:
// the loss with label smoothing on your kernel, and an update rule that asks your schedule for
// every step's learning rate.
#include <memory>
#include <string>

#include "network.hpp"
#include "optimizer.hpp"
#include "softmax_cross_entropy.hpp"

namespace speedrun {

// Softmax-cross-entropy with label smoothing (your 14.2), on the network's stream: forward writes
// row_loss() and logits_grad() at once; backward has nothing left to do.
class SmoothedSoftmaxCrossEntropy : public mnist_gpu::SoftmaxCrossEntropy {
 public:
  SmoothedSoftmaxCrossEntropy(int classes, int max_batch, float smoothing);
  void forward(const float* logits, const int* labels, int batch) override;
  void backward(const int* labels, int batch) override;
  bool runs_on_stream() const override { return true; }

 private:
  float smoothing_;
};
mnist_gpu::LossMaker smoothed_loss_maker(float smoothing);

// How the learning rate moves over a run: your one-cycle schedule (14.1), or constant.
enum class Schedule { one_cycle, constant };

// The optimizer `kind` (nesterov: your 14.4; sgd: lesson 03's momentum SGD; adam: lesson 08's)
// with step t's learning rate from `schedule` over total_steps steps (warmup_steps of them rising),
// peaking at peak_lr. The one-cycle rates of the whole run are computed here, uploaded once, and
// step t's update reads entry t - 1 of them: a captured step keeps its own step's rate, so capture
// each step of the run once (train_speedrun does), never replay one step for another. A constant
// schedule reads the optimizer's rate.
mnist_gpu::DeviceUpdateRule scheduled_rule(framework::OptimizerKind kind, Schedule schedule, int total_steps,
                                           int warmup_steps, float peak_lr);

}  // namespace speedrun
