// Lesson 16 (given): the sine task's network on one GPU (sine_gpu_model.hpp).
#include "sine_gpu_model.hpp"

#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "data_parallel.hpp"  // 13.2's allreduce_mean
#include "deeper_cnns.hpp"    // 15.4's regression_loss_gpu
#include "framework/layer.hpp"  // the chain
#include "lstm_gpu_layer.hpp"
#include "sine_model.hpp"  // the model and its layout

namespace recurrent {

SineGpuNetwork::SineGpuNetwork(const framework::ModelSpec& spec, uint64_t seed, Recurrence recurrence, bool graph,
                               const SineData& data, const framework::OptimizerConfig& optimizer,
                               const framework::Rank* rank, int train_waves)
    : rank_(rank && rank->ranks > 1 ? rank : nullptr),
      train_waves_(rank_ ? train_waves : data.train.count), recurrence_(recurrence), use_graph_(graph),
      spec_(spec), params_(framework::init_parameters(spec_, seed)), optimizer_(optimizer, params_) {
  if (train_waves_ < data.train.count)
    throw course::Error("SineGpuNetwork: a shard of " + std::to_string(data.train.count) + " waves out of " +
                        std::to_string(train_waves_));
  framework::require_layers(spec_, sequence_gpu_kinds(), "SineGpuNetwork");
  const std::vector<framework::LayerPlan> plan = framework::plan_layers(spec_);
  // What the two sets need on the device (per row: the input, target, loss and its gradient; each
  // layer's output and input gradient, an LSTM's c and gates; each LSTM's workspace), against what
  // is free: refused in one line rather than failing halfway. 16.3's plan is checked first: refused
  // here, before the sets' buffers, when it cannot run.
  double floats = 0;
  for (const SineSet* set : {&data.train, &data.test}) {
    const uint64_t rows = uint64_t(set->count) * set->steps;
    floats += double(forward_floats(plan, rows) + backward_floats(plan, rows) + 4 * rows);
    for (const framework::LayerPlan& p : plan) {
      if (p.spec.kind != framework::LayerKind::lstm) continue;
      const LstmShape s{set->count, set->steps, int(p.in_size()), int(p.out_size())};
      if (recurrence == Recurrence::persistent) plan_persistent(s);
      floats += double(lstm_gpu_workspace_floats(s));
    }
  }
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (floats * sizeof(float) > 0.9 * double(free_bytes))
    throw course::Error("the GPU has " + std::to_string(free_bytes >> 20) + " MiB free; " +
                        std::to_string(long(floats * sizeof(float)) >> 20) + " MiB of states and gradients are "
                        "needed: use fewer --sequences, a shorter --length or a smaller network");
  upload(train_, data.train);
  upload(test_, data.test);
}

size_t SineGpuNetwork::parameter_count() const { return params_.parameter_count(); }

std::vector<float> SineGpuNetwork::parameters() const {
  std::vector<float> all;
  for (const framework::Parameter& p : params_.download()) all.insert(all.end(), p.value.begin(), p.value.end());
  return all;
}

void SineGpuNetwork::upload(Pass& pass, const SineSet& set) {
  pass.count = set.count, pass.steps = set.steps;
  const size_t rows = size_t(set.count) * set.steps;
  pass.inputs = course::DeviceBuffer<float>(set.inputs), pass.targets = course::DeviceBuffer<float>(set.targets);
  pass.row_loss = course::DeviceBuffer<float>(rows), pass.dpred = course::DeviceBuffer<float>(rows);
  pass.loss = course::DeviceBuffer<float>(1);
  framework::DeviceLayerContext context;
  context.max_batch = int(rows);
  context.params = [this](const framework::LayerPlan& plan, size_t k) {
    const size_t tensor = size_t(plan.weight) + k;
    return framework::ParamView{params_.value(tensor), params_.grad(tensor)};
  };
  pass.layers = sequence_gpu_layers(recurrence_)->make(framework::plan_layers(spec_), context);
  for (const auto& layer : pass.layers) layer->set_stream(stream_.get());
  framework::set_steps(pass.layers, set.steps);  // sizes the LSTM's workspace: before any capture
}

void SineGpuNetwork::enqueue(Pass& pass, bool learn) {
  const int rows = pass.count * pass.steps;
  cudaStream_t stream = stream_.get();
  const float* pred = framework::chain_forward(pass.layers, pass.inputs.data(), rows);
  deeper_cnns::regression_loss_gpu(deeper_cnns::RegressionLoss::squared, pred, pass.targets.data(), rows, 1, 1.0f,
                                   pass.row_loss.data(), pass.dpred.data(), stream);
  column_sums_gpu(pass.row_loss.data(), rows, 1, 1, pass.loss.data(), 1, nullptr, stream);
  // The waves are data: the LSTM makes no gradient for them (it reads the network's input).
  if (learn) framework::chain_backward(pass.layers, pass.inputs.data(), pass.dpred.data(), rows);
}

void SineGpuNetwork::launch(Pass& pass, bool learn) {
  if (!use_graph_) return enqueue(pass, learn);
  if (pass.graph.empty())
    pass.graph = fast_training::GraphExec(fast_training::capture_graph(stream_.get(), [&] { enqueue(pass, learn); }));
  pass.graph.launch(stream_.get());
}

double SineGpuNetwork::finished_loss(const Pass& pass) {
  float loss = 0;
  CUDA_CHECK(cudaMemcpyAsync(&loss, pass.loss.data(), sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream_.get()));  // the one wait of a step: its work is done
  return loss;
}

double SineGpuNetwork::train_step() {
  launch(train_, true);
  if (rank_)  // the mean over every rank's rows: each shard's mean weighted by its rows
    data_parallel::allreduce_mean(*rank_, params_.grads(), params_.total(), train_.count, train_waves_,
                                  stream_.get());
  optimizer_.step(stream_.get());
  return finished_loss(train_);
}

double SineGpuNetwork::test_loss() {
  launch(test_, false);
  return finished_loss(test_);
}

}  // namespace recurrent
