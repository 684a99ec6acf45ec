#pragma once
// Lesson 16 (given): the sine task's network on one GPU, built as the CPU's is (sine_model.hpp): the
// same model (LSTMs, and a last dense layer of one output) from the same starting weights, its layers made by this lesson's GPU
// makers (lstm_gpu_layer.hpp: your recurrence, 16.2 steps or 16.3 persistent, inside the LSTM's
// passes, and a one-output head) and run by the framework's chain; every parameter in the
// framework's ParameterStore; 15.4's squared error; the framework's optimizer with lesson 08's Adam
// (its rate in device memory, read by the update kernel). The whole training set runs
// as one batch; with `graph`, the forward and backward passes are one CUDA graph (lesson 09),
// replayed every epoch.
#include <cstdint>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/stream.hpp"
#include "framework/layer_stack.hpp"
#include "framework/model.hpp"
#include "framework/optimizer_config.hpp"
#include "framework/parameter_store.hpp"
#include "framework/ranks.hpp"
#include "optimizer.hpp"  // lesson 08's update rules
#include "recurrent_gpu.hpp"
#include "sine_task.hpp"
#include "step_graph.hpp"  // lesson 09's graphs

namespace recurrent {

class SineGpuNetwork {
 public:
  // Uploads the training and held-out sets once. Throws course::Error (plan_persistent's) when the
  // persistent recurrence cannot hold this many units on this GPU, or when the sets do not fit.
  // optimizer: the run's (--optimizer, --lr). With `rank` (lesson 13's ranks: one GPU each),
  // data.train is this rank's shard of `train_waves` training waves: after each backward pass the
  // gradients are averaged over the ranks (13.2's allreduce_mean, each shard weighted by its size),
  // and every rank takes the same Adam step.
  // spec: sine_model's, on the GPU's kinds (sequence_gpu_kinds).
  SineGpuNetwork(const framework::ModelSpec& spec, uint64_t seed, Recurrence recurrence, bool graph,
                 const SineData& data,
                 const framework::OptimizerConfig& optimizer, const framework::Rank* rank = nullptr,
                 int train_waves = 0);
  size_t parameter_count() const;

  // The training set's mean squared error (with ranks: over this rank's shard), its gradients, then
  // one step of the optimizer. Returns once the GPU has done all of it.
  double train_step();
  // The held-out set's mean squared error with the current weights.
  double test_loss();
  // The weights laid end to end, in the model's order (the CPU network's set_parameters).
  std::vector<float> parameters() const;

 private:
  struct Pass {  // one set on the device, the layers that run it, its loss
    int count = 0, steps = 0;
    course::DeviceBuffer<float> inputs, targets, row_loss, dpred;
    course::DeviceBuffer<float> loss;  // the sum of row_loss, summed on the GPU
    framework::DeviceLayerMakers::Layers layers;  // the model's, sized for this set's rows
    fast_training::GraphExec graph;  // forward and (training set) backward, captured once
  };
  void upload(Pass& pass, const SineSet& set);
  void enqueue(Pass& pass, bool learn);  // the launches of one pass on stream_
  void launch(Pass& pass, bool learn);   // enqueue's launches, replayed from a graph with use_graph_
  double finished_loss(const Pass& pass);  // waits for the stream, then reads pass.loss

  const framework::Rank* rank_;
  int train_waves_;
  Recurrence recurrence_;
  bool use_graph_;
  framework::ModelSpec spec_;
  framework::ParameterStore params_;
  mnist_gpu::DeviceOptimizer optimizer_;
  course::Stream stream_;
  Pass train_, test_;
};

}  // namespace recurrent
