#pragma once
// A double-precision forward pass of a ModelSpec, written for the tests from lesson 01's double
// layers (host_layers_ref): the reference that HostNetwork's float code is checked against.
#include <vector>

#include "course/error.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"

namespace test02 {

// Parameters as doubles, in the order of init_parameters.
inline std::vector<std::vector<double>> to_double(const std::vector<host_training::Parameter>& params) {
  std::vector<std::vector<double>> out;
  for (const auto& p : params) out.emplace_back(p.value.begin(), p.value.end());
  return out;
}

// One layer of lesson 02's kinds (conv, relu, maxpool, dense) in double: out = layer(in) for
// `batch` examples, with parameters `w` in the order of init_parameters. False for another kind
// (lesson 12's reference adds its own), out then untouched.
inline bool reference_layer(const host_training::LayerPlan& p, const std::vector<std::vector<double>>& w,
                            const std::vector<double>& in, std::vector<double>& out, int batch) {
  using host_training::LayerKind;
  out.assign(size_t(batch) * p.out_size(), 0.0);
  switch (p.spec.kind) {
    case LayerKind::conv: {
      host_layers::ConvShape s;
      s.batch = batch, s.in_channels = p.in_c, s.height = p.in_h, s.width = p.in_w;
      s.out_channels = p.out_c, s.kernel_h = s.kernel_w = p.spec.kernel, s.stride = p.spec.stride, s.pad = p.spec.pad;
      host_layers::conv2d_forward(s, in.data(), w[size_t(p.weight)].data(), w[size_t(p.weight) + 1].data(), out.data());
      return true;
    }
    case LayerKind::relu:
      host_layers::relu_forward(in.data(), out.data(), out.size());
      return true;
    case LayerKind::maxpool: {
      host_layers::PoolShape s;
      s.batch = batch, s.channels = p.in_c, s.height = p.in_h, s.width = p.in_w, s.window = p.spec.window,
      s.stride = p.spec.stride;
      host_layers::maxpool_forward(s, in.data(), out.data(), static_cast<int*>(nullptr));
      return true;
    }
    case LayerKind::dense:
      host_layers::dense_forward(in.data(), w[size_t(p.weight)].data(), w[size_t(p.weight) + 1].data(), out.data(),
                                 batch, static_cast<int>(p.in_size()), p.out_c);
      return true;
    default:
      return false;
  }
}

// Logits (batch x classes) of `spec` with parameters `w` for input x (batch x C x H x W).
// Throws for a layer that is not lesson 02's (the reference would otherwise skip it).
inline std::vector<double> reference_logits(const host_training::ModelSpec& spec,
                                            const std::vector<std::vector<double>>& w,
                                            const std::vector<double>& x, int batch) {
  std::vector<double> in = x, out;
  for (const host_training::LayerPlan& p : host_training::plan_layers(spec)) {
    if (!reference_layer(p, w, in, out, batch))
      throw course::Error("reference_logits: '" + host_training::layer_text(p.spec) + "' is not one of lesson 02's");
    in.swap(out);
  }
  return in;
}

// Mean softmax-cross-entropy loss of the reference network; probs (batch x classes) if given.
inline double reference_loss(const host_training::ModelSpec& spec, const std::vector<std::vector<double>>& w,
                             const std::vector<double>& x, const std::vector<int>& labels, int batch,
                             std::vector<double>* probs = nullptr) {
  const std::vector<double> logits = reference_logits(spec, w, x, batch);
  std::vector<double> p(logits.size());
  const double loss =
      host_layers::softmax_cross_entropy_forward(logits.data(), labels.data(), p.data(), batch, spec.classes);
  if (probs) *probs = p;
  return loss;
}

}  // namespace test02
