// Lesson 13 (given): the networks a replica can train (network_kinds.hpp).
#include "network_kinds.hpp"


#include "beyond_gpu_layers.hpp"
#include "course/error.hpp"
#include "softmax_cross_entropy.hpp"

namespace data_parallel {

NetworkKind network_kind_by_name(const std::string& name) {
  if (name == "fast") return NetworkKind::fast_network;
  if (name == "layers") return NetworkKind::layer_list;
  throw course::Error("network kind must be fast or layers, got '" + name + "'");
}

const char* network_kind_name(NetworkKind kind) { return kind == NetworkKind::fast_network ? "fast" : "layers"; }

namespace {
// The spec, once every layer of it can launch on a stream of its own.
const host_training::ModelSpec& runs_on_streams(const host_training::ModelSpec& spec) {
  const std::string problem = beyond_mnist::stream_problem(spec);
  if (!problem.empty())
    throw course::Error("model " + course::shown(spec.name, 80) + ": every layer of a replica launches on its rank's stream; " + problem);
  return spec;
}

// Each layer's weight tensor in the store, -1 for a layer without parameters.
std::vector<long> weight_of_layers(const framework::LayerStack& net) {
  std::vector<long> weights;
  for (size_t i = 0; i < net.layer_count(); ++i) weights.push_back(net.layer_plan(i).weight);
  return weights;
}
}  // namespace

LayerListNetwork::LayerListNetwork(const host_training::ModelSpec& spec,
                                   const std::vector<host_training::Parameter>& init, int max_batch,
                                   cudaStream_t stream, uint64_t seed)
    : GpuNetwork(runs_on_streams(spec), init, max_batch, mnist_gpu::ConvAlgorithm::automatic,
                 beyond_mnist::beyond_gpu_layers(seed, beyond_mnist::GpuLayers::lesson09).get(),
                 beyond_mnist::fused_loss_maker()),
      readiness_(weight_of_layers(*this)) {
  set_stream(stream);
  set_observer(this);
}

void LayerListNetwork::forward_backward(const float* x, const int* labels, int batch) {
  readiness_.pass_begins();
  GpuNetwork::forward_backward(x, labels, batch);
  if (hook_) readiness_.pass_ends(hook_);  // 13.3: the first layers, once the whole pass has returned
}

void LayerListNetwork::pass_starts(const std::string& who, bool backward) {
  if (!backward || !hook_) return;
  for (size_t i = 0; i < layer_count(); ++i)  // the loss is none of the layers
    if (layer_name(i) == who) return readiness_.backward_starts(i, hook_);  // 13.3
}

std::unique_ptr<framework::DeviceNetwork> make_replica_network(NetworkKind kind, const host_training::ModelSpec& spec,
                                                               const std::vector<host_training::Parameter>& init,
                                                               int max_batch, cudaStream_t stream,
                                                               fast_training::ConvEngine conv, uint64_t seed) {
  if (kind == NetworkKind::fast_network) {
    try {
      return std::make_unique<fast_training::FastNetwork>(spec, init, max_batch, stream, conv);
    } catch (const course::Error& e) {
      throw course::Error(std::string(e.what()) + " (train_parallel --network layers trains any layer list)");
    }
  }
  return std::make_unique<LayerListNetwork>(spec, init, max_batch, stream, seed);
}

}  // namespace data_parallel
