// Lesson 12 (given): the host network for every layer kind (beyond_host_network.hpp).
#include "beyond_host_network.hpp"

#include "beyond_gpu_layers.hpp"  // layer_kinds
#include "beyond_mnist.hpp"
#include "course/error.hpp"
#include "dropout_mask.hpp"

namespace beyond_mnist {

using host_training::LayerKind;

BeyondHostNetwork::BeyondHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                     int threads, uint64_t dropout_seed)
    : FastHostNetwork(std::move(spec), std::move(params), threads, layer_kinds()),
      dropout_seed_(dropout_seed) {}

float BeyondHostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  const float loss = FastHostNetwork::forward_backward(x, labels, batch);
  ++passes_;  // the next call draws new masks
  return loss;
}

void BeyondHostNetwork::extra_forward(size_t i, int, bool training) {
  const host_training::LayerPlan& p = plan_[i];
  const float* in = acts_[i].data();
  float* out = acts_[i + 1].data();
  const size_t n = acts_[i].size();
  switch (p.spec.kind) {
    case LayerKind::sigmoid: sigmoid_forward(in, out, n); return;
    case LayerKind::tanh: tanh_forward(in, out, n); return;
    case LayerKind::dropout:  // evaluation keeps every value: rate 0 is the identity
      dropout_forward(in, out, n, training ? p.spec.rate : 0.0f, dropout_key(dropout_seed_, int(i), passes_));
      return;
    default:
      throw course::Error("BeyondHostNetwork: no forward pass for layer '" + host_training::layer_text(p.spec) + "'");
  }
}

void BeyondHostNetwork::extra_backward(size_t i, int) {
  const host_training::LayerPlan& p = plan_[i];
  const float* y = acts_[i + 1].data();  // sigmoid and tanh need only their output
  const float* dout = grads_[i + 1].data();
  float* din = grads_[i].data();
  const size_t n = grads_[i].size();
  switch (p.spec.kind) {
    case LayerKind::sigmoid: sigmoid_backward(y, dout, din, n); return;
    case LayerKind::tanh: tanh_backward(y, dout, din, n); return;
    case LayerKind::dropout:  // the same key as this pass's forward: the same mask
      dropout_backward(dout, din, n, p.spec.rate, dropout_key(dropout_seed_, int(i), passes_));
      return;
    default:
      throw course::Error("BeyondHostNetwork: no backward pass for layer '" + host_training::layer_text(p.spec) + "'");
  }
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
