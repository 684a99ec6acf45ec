// Lesson 12 (given): the host network for every layer kind (beyond_host_network.hpp).
#include "beyond_host_network.hpp"

#include "beyond_gpu_layers.hpp"  // layer_kinds
#include "beyond_host_layers.hpp"
#include "course/error.hpp"
#include "fast_host_layers.hpp"

namespace beyond_mnist {

const framework::HostLayerMakers& beyond_host_layers() {
  static const framework::HostLayerMakers makers = [] {
    framework::HostLayerMakers m;
    fast_cpu::add_fast_host_layers(m);
    add_beyond_host_layers(m).add_pass(fast_cpu::kFuseReluIntoPool, fast_cpu::fuse_relu_into_pool);
    return m;
  }();
  return makers;
}

BeyondHostNetwork::BeyondHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                     int threads, uint64_t dropout_seed)
    : FastHostNetwork(std::move(spec), std::move(params), threads, beyond_host_layers(), layer_kinds(), dropout_seed) {}

float BeyondHostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  const float loss = FastHostNetwork::forward_backward(x, labels, batch);
  ++passes_;  // the next call draws new masks (each dropout layer counts its own passes too)
  return loss;
}

host_training::NetworkMaker network_maker(int threads, uint64_t seed) {
  if (threads < 1) throw course::Error("threads must be >= 1, got " + std::to_string(threads));
  return [threads, seed](const host_training::ModelSpec& spec, std::vector<host_training::Parameter> params) {
    return std::make_unique<BeyondHostNetwork>(spec, std::move(params), threads, seed);
  };
}

std::string network_description(int threads) {
  return "lesson 11's layers on " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") +
         ", sigmoid, tanh and dropout yours (12.1, 12.2)";
}

}  // namespace beyond_mnist
