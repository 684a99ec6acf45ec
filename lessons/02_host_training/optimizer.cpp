// Lesson 02 (given code): sgd_momentum_step and adam_step (step 02.1) as the update rules
// the framework's optimizer runs over every parameter of a network.
#include <algorithm>
#include <vector>

#include "host_training.hpp"

namespace host_training {

const UpdateRule& sgd_rule() {
  static const UpdateRule rule{OptimizerKind::sgd, 1,
                               [](float* w, const float* g, float* velocity, float*, size_t n,
                                  const OptimizerConfig& c, int) {
                                 sgd_momentum_step(w, g, velocity, n, c.lr, c.momentum, c.weight_decay);
                               }};
  return rule;
}

const UpdateRule& adam_rule() {
  static const UpdateRule rule{
      OptimizerKind::adam, 2, [](float* w, const float* g, float* m, float* v, size_t n, const OptimizerConfig& c, int t) {
        if (c.weight_decay == 0.0f) {
          adam_step(w, g, m, v, n, c.lr, c.beta1, c.beta2, c.eps, t);
          return;
        }
        // L2 penalty folded into the gradient, as PyTorch's Adam does. Scratch kept per thread
        // (ranges may run on several), grown once, not allocated every step.
        thread_local std::vector<float> decayed;
        decayed.resize(std::max(decayed.size(), n));
        for (size_t k = 0; k < n; ++k) decayed[k] = g[k] + c.weight_decay * w[k];
        adam_step(w, decayed.data(), m, v, n, c.lr, c.beta1, c.beta2, c.eps, t);
      }};
  return rule;
}

}  // namespace host_training
