#pragma once
// Lesson 13 (given): the networks a replica can train. Both are the framework's DeviceNetwork.
//
//   NetworkKind::fast_network  lesson 09's FastNetwork: model A's shape (conv-relu-pool blocks, then
//                              dense layers), its own fused kernels; it reports each layer's
//                              gradients itself (its gradient hook).
//   NetworkKind::layer_list    lesson 08's GpuNetwork of ANY layer list (lesson 12's models:
//                              mnist_cnn, colour_cnn, ... with dropout, tanh, ...) on lesson 12's
//                              layers, which run lesson 09's kernels on the rank's stream. Lesson 08's
//                              network has no gradient hook: LayerListNetwork adds one (below).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fast_network.hpp"
#include "framework/device_network.hpp"
#include "host_training.hpp"
#include "network.hpp"

namespace data_parallel {

enum class NetworkKind { fast_network, layer_list };
NetworkKind network_kind_by_name(const std::string& name);  // "fast" | "layers", else course::Error
const char* network_kind_name(NetworkKind kind);

// Lesson 08's GpuNetwork with a gradient hook. The network tells a PassObserver when each layer's
// pass starts; a layer's gradients are all enqueued once the backward pass of any layer before it
// starts (or the whole pass has returned): that is when this network reports them.
class LayerListNetwork : public mnist_gpu::GpuNetwork, private mnist_gpu::PassObserver {
 public:
  // Dropout draws its masks from `seed` (lesson 12's keys: the same seed and training pass, the same
  // mask on every rank). Throws course::Error when a layer cannot launch on `stream` (a pool after
  // tanh, say: lesson 12's stream_problem names it).
  LayerListNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                   int max_batch, cudaStream_t stream, uint64_t seed);
  void forward_backward(const float* x, const int* labels, int batch) override;
  void set_gradient_hook(GradientHook hook) override { hook_ = std::move(hook); }

 private:
  void pass_starts(const std::string& who, bool backward) override;
  // Reports every layer with parameters at position >= `first` not reported yet, last first.
  void report_down_to(size_t first);
  std::vector<std::string> layer_names_;  // position -> name (what the observer hears)
  std::vector<long> weight_of_layer_;     // position -> its weight's tensor, -1: no parameters
  GradientHook hook_;
  size_t unreported_end_ = 0;  // layers at positions >= this have been reported in this pass
};

// The network `kind` builds for `spec`, for batches of up to max_batch, launching on `stream`.
// `conv`: lesson 09's conv engine (fast_network); `seed`: dropout's masks (layer_list).
std::unique_ptr<framework::DeviceNetwork> make_replica_network(NetworkKind kind, const host_training::ModelSpec& spec,
                                                               const std::vector<host_training::Parameter>& init,
                                                               int max_batch, cudaStream_t stream,
                                                               fast_training::ConvEngine conv, uint64_t seed);

}  // namespace data_parallel
