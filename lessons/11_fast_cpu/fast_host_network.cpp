// Lesson 11 (given): the host network on this lesson's layers (fast_host_network.hpp).
#include "fast_host_network.hpp"

#include <algorithm>
#include <thread>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

using host_training::LayerKind;
using host_training::LayerPlan;

FastHostNetwork::FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                 int threads)
    : HostNetwork(std::move(spec), std::move(params)), threads_(threads) {
  if (threads < 1) throw course::Error("FastHostNetwork: threads must be >= 1, got " + std::to_string(threads));
}

void FastHostNetwork::forward_layers(int batch) {
  for (size_t i = 0; i < plan_.size(); ++i) {
    const LayerPlan& p = plan_[i];
    const float* in = acts_[i].data();
    float* out = acts_[i + 1].data();
    switch (p.spec.kind) {
      case LayerKind::conv: {
        const host_layers::ConvShape s = conv_shape(i, batch);
        workspace_.resize(std::max(workspace_.size(), conv_workspace_floats(s)));
        conv2d_forward(s, in, weight_of(i), bias_of(i), out, workspace_.data(), threads_);
        break;
      }
      case LayerKind::relu:
        host_layers::relu_forward(in, out, acts_[i].size());
        break;
      case LayerKind::maxpool:
        host_layers::maxpool_forward(pool_shape(i, batch), in, out, argmax_[i].data());
        break;
      case LayerKind::dense:
        dense_forward(in, weight_of(i), bias_of(i), out, batch, static_cast<int>(p.in_size()), p.out_c, threads_);
        break;
    }
  }
}

void FastHostNetwork::forward(const float* x, int batch, float* logits) {
  prepare(batch);  // throws on batch <= 0
  std::copy(x, x + acts_[0].size(), acts_[0].begin());
  forward_layers(batch);
  std::copy(acts_.back().begin(), acts_.back().end(), logits);
}

float FastHostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  prepare(batch);
  std::copy(x, x + acts_[0].size(), acts_[0].begin());
  forward_layers(batch);
  const float loss = host_layers::softmax_cross_entropy_forward(acts_.back().data(), labels, probs_.data(), batch,
                                                                spec_.classes);
  host_layers::softmax_cross_entropy_backward(probs_.data(), labels, grads_.back().data(), batch, spec_.classes);
  for (size_t i = plan_.size(); i-- > 0;) {
    const LayerPlan& p = plan_[i];
    const bool input_grad = i > 0;  // the network's input: nobody reads its gradient
    const float* in = acts_[i].data();
    const float* dout = grads_[i + 1].data();
    float* din = grads_[i].data();
    switch (p.spec.kind) {
      case LayerKind::conv: {
        const host_layers::ConvShape s = conv_shape(i, batch);
        workspace_.resize(std::max(workspace_.size(), conv_workspace_floats(s)));
        conv2d_backward(s, in, weight_of(i), dout, din, weight_grad_of(i), bias_grad_of(i), workspace_.data(),
                        threads_, input_grad);
        break;
      }
      case LayerKind::relu:
        if (input_grad) host_layers::relu_backward(in, dout, din, acts_[i].size());
        break;
      case LayerKind::maxpool:
        if (input_grad) host_layers::maxpool_backward(pool_shape(i, batch), argmax_[i].data(), dout, din);
        break;
      case LayerKind::dense:
        dense_backward(in, weight_of(i), dout, din, weight_grad_of(i), bias_grad_of(i), batch,
                       static_cast<int>(p.in_size()), p.out_c, threads_, input_grad);
        break;
    }
  }
  return loss;
}

int default_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

host_training::NetworkMaker network_maker(int threads) {
  if (threads < 1) throw course::Error("threads must be >= 1, got " + std::to_string(threads));
  return [threads](const host_training::ModelSpec& spec, std::vector<host_training::Parameter> params) {
    return std::make_unique<FastHostNetwork>(spec, std::move(params), threads);
  };
}

std::string network_description(int threads) {
  return "lesson 11's layers (conv and dense on the blocked, vectorised GEMM) on " + std::to_string(threads) +
         " thread" + (threads == 1 ? "" : "s") + ", the first layer's dx skipped";
}

}  // namespace fast_cpu
