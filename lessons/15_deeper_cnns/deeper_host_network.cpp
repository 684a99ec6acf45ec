// Lesson 15 (given): the host network for every layer kind, res blocks included (deeper_host_network.hpp).
#include "deeper_host_network.hpp"

#include <memory>
#include <string>
#include <utility>

#include "course/error.hpp"
#include "fast_host_layers.hpp"  // the loss

namespace deeper_cnns {

const framework::LayerKinds& layer_kinds() {
  using framework::LayerKind;
  static const framework::LayerKinds kinds = framework::more_layers(
      framework::basic_layers(),
      {LayerKind::sigmoid, LayerKind::tanh, LayerKind::dropout, LayerKind::batch_norm, LayerKind::global_avg_pool,
       LayerKind::residual},
      "every kind");
  return kinds;
}

DeeperHostNetwork::DeeperHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                     int threads, uint64_t dropout_seed)
    : HostStack(std::move(spec), std::move(params), layer_kinds(), "DeeperHostNetwork") {
  if (threads < 1) throw course::Error("DeeperHostNetwork: threads must be >= 1, got " + std::to_string(threads));
  std::vector<framework::HostLayer*> made;
  const framework::HostLayerContext context{&params_, threads, &workspace_, dropout_seed};
  set_layers(deeper_host_layers().make(plan_, context, &made),
             std::make_unique<fast_cpu::SoftmaxCrossEntropyOnCpu>(spec_.classes));
  for (framework::HostLayer* layer : made)  // all_layers' order
    if (auto* norm = dynamic_cast<const BatchNormOnCpu*>(layer)) norms_.push_back(norm);
}

const std::vector<float>& DeeperHostNetwork::running_mean(size_t k) const { return norms_.at(k)->running_mean(); }
const std::vector<float>& DeeperHostNetwork::running_var(size_t k) const { return norms_.at(k)->running_var(); }

host_training::NetworkMaker network_maker(int threads, uint64_t seed) {
  return [threads, seed](const host_training::ModelSpec& spec, std::vector<host_training::Parameter> params) {
    return std::make_unique<DeeperHostNetwork>(spec, std::move(params), threads, seed);
  };
}

std::string network_description(int threads) {
  return "lesson 11's layers on " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") +
         ", batch norm and global average pooling yours (15.1, 15.5), res blocks given";
}

}  // namespace deeper_cnns
