#pragma once
// A double-precision forward pass of any layer list, written for lesson 12's tests from lesson 01's
// double layers and the test's own sigmoid, tanh and dropout: the reference that lesson 12's
// networks are checked against. Dropout layer i drops with dropout_key(seed, i, pass).
#include <cmath>
#include <cstdint>
#include <vector>

#include "dropout_mask.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"
#include "layer_shapes.hpp"

namespace test12 {

struct Dropout {
  bool training = false;  // false: evaluation, nothing dropped
  uint64_t seed = 0, pass = 0;
};

inline std::vector<std::vector<double>> to_double(const std::vector<host_training::Parameter>& params) {
  std::vector<std::vector<double>> out;
  for (const auto& p : params) out.emplace_back(p.value.begin(), p.value.end());
  return out;
}

inline std::vector<double> reference_logits(const host_training::ModelSpec& spec,
                                            const std::vector<std::vector<double>>& w, const std::vector<double>& x,
                                            int batch, const Dropout& dropout) {
  using host_training::LayerKind;
  const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
  std::vector<double> in = x, out;
  for (size_t i = 0; i < plan.size(); ++i) {
    const host_training::LayerPlan& p = plan[i];
    out.assign(size_t(batch) * p.out_size(), 0.0);
    const std::vector<double>* weight = p.weight >= 0 ? &w[size_t(p.weight)] : nullptr;
    const std::vector<double>* bias = p.weight >= 0 ? &w[size_t(p.weight) + 1] : nullptr;
    switch (p.spec.kind) {
      case LayerKind::conv:
        host_layers::conv2d_forward(host_training::conv_shape_of(p, batch), in.data(), weight->data(), bias->data(),
                                    out.data());
        break;
      case LayerKind::maxpool:
        host_layers::maxpool_forward(host_training::pool_shape_of(p, batch), in.data(), out.data(),
                                     static_cast<int*>(nullptr));
        break;
      case LayerKind::dense:
        host_layers::dense_forward(in.data(), weight->data(), bias->data(), out.data(), batch,
                                   static_cast<int>(p.in_size()), p.out_c);
        break;
      case LayerKind::relu:
        for (size_t k = 0; k < out.size(); ++k) out[k] = in[k] > 0 ? in[k] : 0.0;
        break;
      case LayerKind::sigmoid:
        for (size_t k = 0; k < out.size(); ++k) out[k] = 1.0 / (1.0 + std::exp(-in[k]));
        break;
      case LayerKind::tanh:
        for (size_t k = 0; k < out.size(); ++k) out[k] = std::tanh(in[k]);
        break;
      case LayerKind::dropout: {
        const uint64_t key = beyond_mnist::dropout_key(dropout.seed, int(i), dropout.pass);
        const double scale = beyond_mnist::dropout_scale(p.spec.rate);
        for (size_t k = 0; k < out.size(); ++k)
          out[k] = !dropout.training ? in[k] : beyond_mnist::dropout_keeps(key, k, p.spec.rate) ? in[k] * scale : 0.0;
        break;
      }
    }
    in.swap(out);
  }
  return in;
}

inline double reference_loss(const host_training::ModelSpec& spec, const std::vector<std::vector<double>>& w,
                             const std::vector<double>& x, const std::vector<int>& labels, int batch,
                             const Dropout& dropout) {
  const std::vector<double> logits = reference_logits(spec, w, x, batch, dropout);
  std::vector<double> probs(logits.size());
  return host_layers::softmax_cross_entropy_forward(logits.data(), labels.data(), probs.data(), batch, spec.classes);
}

}  // namespace test12
