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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fast_network.hpp"
#include "framework/device_network.hpp"
#include "framework/ranks.hpp"
#include "gradient_readiness.hpp"
#include "host_training.hpp"
#include "network.hpp"

namespace data_parallel {

enum class NetworkKind { fast_network, layer_list };
NetworkKind network_kind_by_name(const std::string& name);  // "fast" | "layers", else course::Error
const char* network_kind_name(NetworkKind kind);

// Lesson 08's GpuNetwork with a gradient hook: its pass observer's notices turned into reports by
// 13.3's GradientReadiness (gradient_readiness.hpp).
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
  GradientReadiness readiness_;  // over this network's layers (the base class built them first)
  GradientHook hook_;
};

// A network a later lesson builds for a replica instead (its own layers): for `spec` and batches of
// up to max_batch, every launch on `stream`; `seed` for whatever it draws (dropout's masks); `rank`:
// whose replica it is (a layer whose work spans the GPUs talks to the others through its communicator).
using ReplicaNetworkMaker = std::function<std::unique_ptr<framework::DeviceNetwork>(
    const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init, int max_batch,
    cudaStream_t stream, uint64_t seed, const framework::Rank& rank)>;

// The network `kind` builds for `spec`, for batches of up to max_batch, launching on `stream`.
// `conv`: lesson 09's conv engine (fast_network); `seed`: dropout's masks (layer_list).
std::unique_ptr<framework::DeviceNetwork> make_replica_network(NetworkKind kind, const host_training::ModelSpec& spec,
                                                               const std::vector<host_training::Parameter>& init,
                                                               int max_batch, cudaStream_t stream,
                                                               fast_training::ConvEngine conv, uint64_t seed);

}  // namespace data_parallel
