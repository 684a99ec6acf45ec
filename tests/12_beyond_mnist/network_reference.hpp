#pragma once
// A double-precision forward pass of any layer list: the reference lesson 12's networks are checked
// against. Lesson 02's test reference runs lesson 02's layers (lesson 01's double loops); sigmoid,
// tanh and dropout are written here. Dropout layer i drops with dropout_key(seed, i, pass).
#include <cmath>
#include <cstdint>
#include <vector>

#include "dropout_mask.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"
#include "../02_host_training/reference_network.hpp"

namespace test12 {

struct Dropout {
  bool training = false;  // false: evaluation, nothing dropped
  uint64_t seed = 0, pass = 0;
};

using test02::to_double;

inline std::vector<double> reference_logits(const host_training::ModelSpec& spec,
                                            const std::vector<std::vector<double>>& w, const std::vector<double>& x,
                                            int batch, const Dropout& dropout) {
  using host_training::LayerKind;
  const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
  std::vector<double> in = x, out;
  for (size_t i = 0; i < plan.size(); ++i) {
    const host_training::LayerPlan& p = plan[i];
    if (!test02::reference_layer(p, w, in, out, batch)) {  // lesson 12's layers, elementwise
      out.assign(in.size(), 0.0);
      const uint64_t key = beyond_mnist::dropout_key(dropout.seed, int(i), dropout.pass);
      for (size_t k = 0; k < out.size(); ++k) {
        if (p.spec.kind == LayerKind::sigmoid)
          out[k] = 1.0 / (1.0 + std::exp(-in[k]));
        else if (p.spec.kind == LayerKind::tanh)
          out[k] = std::tanh(in[k]);
        else if (!dropout.training)
          out[k] = in[k];
        else
          out[k] = beyond_mnist::dropout_keeps(key, k, p.spec.rate) ? in[k] * beyond_mnist::dropout_scale(p.spec.rate)
                                                                   : 0.0;
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
