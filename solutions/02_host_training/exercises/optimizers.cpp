// Lesson 02, step 02.1: the two optimizers, one update of n values.
#include <cmath>

#include "host_training.hpp"

namespace host_training {

void sgd_momentum_step(float* w, const float* g, float* velocity, size_t n, float lr, float momentum,
                       float weight_decay) {
  for (size_t i = 0; i < n; ++i) {
    // Weight decay is an L2 penalty (weight_decay/2)*w^2 on the loss: its gradient joins g.
    const float grad = g[i] + weight_decay * w[i];
    velocity[i] = momentum * velocity[i] + grad;
    w[i] -= lr * velocity[i];
  }
}

void adam_step(float* w, const float* g, float* m, float* v, size_t n, float lr, float beta1, float beta2,
               float eps, int t) {
  // m and v start at 0, so early on they underestimate the true averages by the factor
  // (1 - beta^t); dividing by it removes that bias. Computed in double: beta2^t is close to 1.
  const float correction1 = static_cast<float>(1.0 - std::pow(double(beta1), t));
  const float correction2 = static_cast<float>(1.0 - std::pow(double(beta2), t));
  for (size_t i = 0; i < n; ++i) {
    m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
    v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
    const float m_hat = m[i] / correction1;
    const float v_hat = v[i] / correction2;
    w[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
  }
}

}  // namespace host_training
