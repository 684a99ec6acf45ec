#pragma once
// Lesson 16 (given): the sine task's network on one GPU: the same network, starting weights, loss and
// Adam as SineNetwork (sine_model.hpp), with your recurrence (16.2 steps or 16.3 persistent) inside
// recurrent_gpu.hpp's passes, a head of its own (one output from every step's h: a reduction over
// the rows, not a product), 15.4's squared error and lesson 08's Adam. The whole training set runs
// as one batch; with `graph`, the forward and backward passes are one CUDA graph (lesson 09),
// replayed every epoch.
#include <cstdint>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/stream.hpp"
#include "framework/ranks.hpp"
#include "recurrent_gpu.hpp"
#include "sine_task.hpp"
#include "step_graph.hpp"  // lesson 09's graphs

namespace recurrent {

class SineGpuNetwork {
 public:
  // Uploads the training and held-out sets once. Throws course::Error (plan_persistent's) when the
  // persistent recurrence cannot hold this many units on this GPU, or when the sets do not fit.
  // With `rank` (lesson 13's ranks: one GPU each), data.train is this rank's shard of `train_waves`
  // training waves: after each backward pass the gradients are averaged over the ranks (13.2's
  // allreduce_mean, each shard weighted by its size), and every rank takes the same Adam step.
  SineGpuNetwork(int hidden, uint64_t seed, Recurrence recurrence, bool graph, const SineData& data,
                 const framework::Rank* rank = nullptr, int train_waves = 0);
  size_t parameter_count() const { return params_.size(); }

  // The training set's mean squared error (with ranks: over this rank's shard), its gradients, then
  // one Adam step (step counts from 1). Returns once the GPU has done all of it.
  double train_step(float lr, int step);
  // The held-out set's mean squared error with the current weights.
  double test_loss();
  std::vector<float> parameters() const { return params_.to_host(); }

 private:
  struct Pass {  // one set on the device, its run and gradients
    int count = 0, steps = 0;
    course::DeviceBuffer<float> inputs, targets, zeros, h, c, gates, pred, row_loss, dpred, dh, dh0, dc0;
    course::DeviceBuffer<float> workspace, loss;  // loss: the sum of row_loss, summed on the GPU
    fast_training::GraphExec graph;  // forward and (training set) backward, captured once
  };
  void upload(Pass& pass, const SineSet& set, bool learn);
  void enqueue(Pass& pass, bool learn);  // the launches of one pass on stream_
  void launch(Pass& pass, bool learn);   // enqueue's launches, replayed from a graph with use_graph_
  double finished_loss(const Pass& pass);  // waits for the stream, then reads pass.loss

  int hidden_;
  const framework::Rank* rank_;
  int train_waves_;
  Recurrence recurrence_;
  bool use_graph_;
  size_t w_hh_, b_ih_, b_hh_, head_, head_b_;
  course::DeviceBuffer<float> params_, grad_, m_, v_, head_parts_;
  course::DeviceBuffer<float> lr_{1};  // Adam's rate, read by 08.2's kernel when it runs
  float lr_value_ = 0;                 // the rate lr_ holds (written when a step asks for another)
  course::Stream stream_;
  Pass train_, test_;
};

}  // namespace recurrent
