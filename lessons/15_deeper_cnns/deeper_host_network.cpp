// Lesson 15 (given): the host network for every layer kind, res blocks included (deeper_host_network.hpp).
#include "deeper_host_network.hpp"

#include <algorithm>

#include "beyond_mnist.hpp"  // lesson 12's sigmoid, tanh and dropout
#include "course/error.hpp"
#include "deeper_cnns.hpp"
#include "dropout_mask.hpp"
#include "fast_cpu.hpp"
#include "fast_host_network.hpp"  // lesson 11's rule for a convolution on the CPU
#include "layer_shapes.hpp"

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

using host_training::LayerKind;
using host_training::LayerPlan;

namespace {

// How many places a layer takes in all_layers' order: itself, its body's and its shortcut's.
size_t span(const LayerPlan& p) {
  size_t n = 1;
  for (const LayerPlan& b : p.body) n += span(b);
  for (const LayerPlan& s : p.shortcut) n += span(s);
  return n;
}

// Where block `p` (at place `at`) has its shortcut's first layer: after itself and its body.
size_t shortcut_place(const LayerPlan& p, size_t at) {
  for (const LayerPlan& b : p.body) at += span(b);
  return at + 1;
}

BatchNormShape norm_shape(const LayerPlan& p, int batch) { return {batch, p.out_c, p.out_h, p.out_w}; }

}  // namespace

DeeperHostNetwork::DeeperHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                     int threads, uint64_t dropout_seed)
    : HostNetwork(std::move(spec), std::move(params), layer_kinds()), threads_(threads),
      dropout_seed_(dropout_seed) {
  if (threads < 1) throw course::Error("DeeperHostNetwork: threads must be >= 1, got " + std::to_string(threads));
  const std::vector<const LayerPlan*> layers = framework::all_layers(plan_);
  state_.resize(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i]->spec.kind != LayerKind::batch_norm) continue;
    norms_.push_back(i);
    state_[i].run_mean.assign(size_t(layers[i]->out_c), 0.0f);  // PyTorch's start: mean 0, variance 1
    state_[i].run_var.assign(size_t(layers[i]->out_c), 1.0f);
  }
}

const std::vector<float>& DeeperHostNetwork::running_mean(size_t k) const { return state_.at(norms_.at(k)).run_mean; }
const std::vector<float>& DeeperHostNetwork::running_var(size_t k) const { return state_.at(norms_.at(k)).run_var; }

const float* DeeperHostNetwork::forward_list(const std::vector<LayerPlan>& list, size_t first, const float* x,
                                             int batch, bool training) {
  for (const LayerPlan& p : list) {
    forward_layer(p, first, x, batch, training);
    x = state_[first].out.data();
    first += span(p);
  }
  return x;
}

void DeeperHostNetwork::forward_layer(const LayerPlan& p, size_t at, const float* x, int batch, bool training) {
  LayerState& st = state_[at];
  const size_t n_in = size_t(batch) * p.in_size(), n_out = size_t(batch) * p.out_size();
  host_training::grow_to(st.out, n_out);  // bytes_for counts it at the larger batch
  float* y = st.out.data();
  switch (p.spec.kind) {
    case LayerKind::conv:
      fast_cpu::conv_forward_on_cpu(host_training::conv_shape_of(p, batch), x, param(p, 0), param(p, 1), y, workspace_,
                                    threads_);
      return;
    case LayerKind::dense:
      fast_cpu::dense_forward(x, param(p, 0), param(p, 1), y, batch, int(p.in_size()), p.out_c, threads_);
      return;
    case LayerKind::relu: host_layers::relu_forward(x, y, n_in); return;
    case LayerKind::maxpool:
      host_training::grow_to(st.argmax, n_out);
      host_layers::maxpool_forward(host_training::pool_shape_of(p, batch), x, y, st.argmax.data());
      return;
    case LayerKind::sigmoid: beyond_mnist::sigmoid_forward(x, y, n_in); return;
    case LayerKind::tanh: beyond_mnist::tanh_forward(x, y, n_in); return;
    case LayerKind::dropout:  // evaluation keeps every value: rate 0 is the identity
      beyond_mnist::dropout_forward(x, y, n_in, training ? p.spec.rate : 0.0f,
                                    beyond_mnist::dropout_key(dropout_seed_, int(at), passes_));
      return;
    case LayerKind::batch_norm:
      if (training) {
        st.mean.resize(size_t(p.out_c)), st.inv_std.resize(size_t(p.out_c));
        batch_norm_forward_train(norm_shape(p, batch), x, param(p, 0), param(p, 1), kBatchNormEps, kBatchNormMomentum,
                                 y, st.mean.data(), st.inv_std.data(), st.run_mean.data(), st.run_var.data());
      } else {
        batch_norm_forward_eval(norm_shape(p, batch), x, param(p, 0), param(p, 1), st.run_mean.data(),
                                st.run_var.data(), kBatchNormEps, y);
      }
      return;
    case LayerKind::global_avg_pool: global_avg_pool_forward(x, y, batch, p.in_c, p.in_h * p.in_w); return;
    case LayerKind::residual: {
      const float* main = forward_list(p.body, at + 1, x, batch, training);
      const float* skip =
          p.shortcut.empty() ? x : forward_list(p.shortcut, shortcut_place(p, at), x, batch, training);
      for (size_t i = 0; i < n_out; ++i) y[i] = main[i] + skip[i];
      return;
    }
  }
}

const float* DeeperHostNetwork::backward_list(const std::vector<LayerPlan>& list, size_t first, const float* x,
                                              const float* dy, int batch, bool input_grad) {
  size_t at = first;  // past the list's last layer, then back layer by layer
  for (const LayerPlan& p : list) at += span(p);
  for (size_t j = list.size(); j-- > 0;) {
    at -= span(list[j]);
    const float* in = j == 0 ? x : state_[at - span(list[j - 1])].out.data();
    backward_layer(list[j], at, in, dy, batch, input_grad || j > 0);
    dy = state_[at].din.data();
  }
  return dy;
}

void DeeperHostNetwork::backward_layer(const LayerPlan& p, size_t at, const float* x, const float* dy, int batch,
                                       bool input_grad) {
  LayerState& st = state_[at];
  const size_t n_in = size_t(batch) * p.in_size();
  host_training::grow_to(st.din, n_in);
  float* dx = st.din.data();
  switch (p.spec.kind) {
    case LayerKind::conv:
      fast_cpu::conv_backward_on_cpu(host_training::conv_shape_of(p, batch), x, param(p, 0), dy, dx, grad(p, 0),
                                     grad(p, 1), workspace_, threads_, input_grad);
      return;
    case LayerKind::dense:
      fast_cpu::dense_backward(x, param(p, 0), dy, dx, grad(p, 0), grad(p, 1), batch, int(p.in_size()), p.out_c,
                               threads_, input_grad);
      return;
    case LayerKind::relu: host_layers::relu_backward(x, dy, dx, n_in); return;
    case LayerKind::maxpool:
      host_layers::maxpool_backward(host_training::pool_shape_of(p, batch), st.argmax.data(), dy, dx);
      return;
    case LayerKind::sigmoid: beyond_mnist::sigmoid_backward(st.out.data(), dy, dx, n_in); return;
    case LayerKind::tanh: beyond_mnist::tanh_backward(st.out.data(), dy, dx, n_in); return;
    case LayerKind::dropout:  // the same key as this pass's forward: the same mask
      beyond_mnist::dropout_backward(dy, dx, n_in, p.spec.rate, beyond_mnist::dropout_key(dropout_seed_, int(at), passes_));
      return;
    case LayerKind::batch_norm:
      batch_norm_backward(norm_shape(p, batch), x, dy, param(p, 0), st.mean.data(), st.inv_std.data(), dx, grad(p, 0),
                          grad(p, 1));
      return;
    case LayerKind::global_avg_pool: global_avg_pool_backward(dy, dx, batch, p.in_c, p.in_h * p.in_w); return;
    case LayerKind::residual: {
      // x fed the body and the shortcut: its gradient is the sum of what comes back along each.
      const float* through_body = backward_list(p.body, at + 1, x, dy, batch, input_grad);
      const float* through_skip =
          p.shortcut.empty() ? dy : backward_list(p.shortcut, shortcut_place(p, at), x, dy, batch, input_grad);
      if (input_grad)
        for (size_t i = 0; i < n_in; ++i) dx[i] = through_body[i] + through_skip[i];
      return;
    }
  }
}

void DeeperHostNetwork::forward(const float* x, int batch, float* logits) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  const float* out = forward_list(plan_, 0, x, batch, false);
  std::copy(out, out + size_t(batch) * size_t(spec_.classes), logits);
}

float DeeperHostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  const size_t logits = size_t(batch) * size_t(spec_.classes);
  probs_.resize(logits), dlogits_.resize(logits);
  const float* out = forward_list(plan_, 0, x, batch, true);
  const float loss = host_layers::softmax_cross_entropy_forward(out, labels, probs_.data(), batch, spec_.classes);
  host_layers::softmax_cross_entropy_backward(probs_.data(), labels, dlogits_.data(), batch, spec_.classes);
  backward_list(plan_, 0, x, dlogits_.data(), batch, false);  // nobody reads the input's gradient
  ++passes_;  // the next call draws new dropout masks
  return loss;
}

std::vector<host_training::Parameter> DeeperHostNetwork::running_tensors() const {
  std::vector<float> values;
  for (size_t k = 0; k < norms_.size(); ++k) {
    values.insert(values.end(), running_mean(k).begin(), running_mean(k).end());
    values.insert(values.end(), running_var(k).begin(), running_var(k).end());
  }
  return framework::running_statistics(spec(), values);
}

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
