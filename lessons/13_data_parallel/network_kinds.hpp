#pragma once
// Lesson 13 (given): the networks a replica can train (replica_network.hpp).
//
//   NetworkKind::fast_network  lesson 09's FastNetwork: model A's shape (conv-relu-pool blocks, then
//                              dense layers), its own fused kernels; it reports each layer's
//                              gradients itself (its gradient hook).
//   NetworkKind::layer_list    lesson 08's GpuNetwork of ANY layer list (lesson 12's models:
//                              mnist_cnn, colour_cnn, ... with dropout, tanh, ...) on lesson 12's
//                              layers, which run lesson 09's kernels on a stream of their own.
//                              Lesson 08's network has no gradient hook; it tells a PassObserver
//                              when each layer's pass starts, and a layer's gradients are all
//                              enqueued once the backward pass of any layer before it starts (or
//                              the whole pass has returned): that is when this network reports them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fast_network.hpp"
#include "host_training.hpp"
#include "network.hpp"
#include "replica_network.hpp"

namespace data_parallel {

enum class NetworkKind { fast_network, layer_list };
NetworkKind network_kind_by_name(const std::string& name);  // "fast" | "layers", else course::Error
const char* network_kind_name(NetworkKind kind);

class FastReplicaNetwork : public ReplicaNetwork {
 public:
  FastReplicaNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                     int max_batch, cudaStream_t stream, fast_training::ConvEngine conv);
  void forward_backward(const float* x, const int* labels, int batch) override {
    net_.forward_backward(x, labels, batch);
  }
  void set_gradient_hook(GradientHook hook) override { net_.set_gradient_hook(std::move(hook)); }
  cudaStream_t stream() const override { return net_.stream(); }
  mnist_gpu::ParameterStore& parameters() override { return net_.parameters(); }
  size_t input_size() const override { return net_.input_size(); }
  const float* logits() override { return net_.logits(); }
  const float* row_loss() override { return net_.row_loss(); }
  mnist_gpu::EvaluationTarget evaluation_target() override;

 private:
  fast_training::FastNetwork net_;
};

class LayerListReplicaNetwork : public ReplicaNetwork, private mnist_gpu::PassObserver {
 public:
  // Dropout draws its masks from `seed` (lesson 12's keys: the same seed and training pass, the same
  // mask on every rank). Throws course::Error when a layer cannot launch on `stream` (a pool after
  // tanh, say: lesson 12's stream_problem names it).
  LayerListReplicaNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                          int max_batch, cudaStream_t stream, uint64_t seed);
  void forward_backward(const float* x, const int* labels, int batch) override;
  void set_gradient_hook(GradientHook hook) override { hook_ = std::move(hook); }
  cudaStream_t stream() const override { return stream_; }
  mnist_gpu::ParameterStore& parameters() override { return net_->parameters(); }
  size_t input_size() const override { return net_->input_size(); }
  const float* logits() override { return net_->logits(); }
  const float* row_loss() override { return net_->loss().row_loss(); }
  mnist_gpu::EvaluationTarget evaluation_target() override;

 private:
  void pass_starts(const std::string& who, bool backward) override;
  // Reports every layer with parameters at position >= `first` not reported yet, last first.
  void report_down_to(size_t first);
  std::unique_ptr<mnist_gpu::GpuNetwork> net_;
  cudaStream_t stream_;
  std::vector<std::string> layer_names_;      // position -> name (what the observer hears)
  std::vector<long> weight_of_layer_;         // position -> its weight's tensor, -1: no parameters
  GradientHook hook_;
  size_t unreported_end_ = 0;  // layers at positions >= this have been reported in this pass
};

// The network `kind` builds for `spec`, for batches of up to max_batch, launching on `stream`.
// `conv`: lesson 09's conv engine (fast_network); `seed`: dropout's masks (layer_list).
std::unique_ptr<ReplicaNetwork> make_replica_network(NetworkKind kind, const host_training::ModelSpec& spec,
                                                     const std::vector<host_training::Parameter>& init,
                                                     int max_batch, cudaStream_t stream,
                                                     fast_training::ConvEngine conv, uint64_t seed);

}  // namespace data_parallel
