// Lesson 02, steps 02.1 and 02.2: the two optimizers. Each call updates n values in place.
#include <cmath>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.1): SGD with momentum, PyTorch's formulation. For every i in 0..n-1:
//     grad        = g[i] + weight_decay * w[i]
//     velocity[i] = momentum * velocity[i] + grad
//     w[i]        = w[i] - lr * velocity[i]
void sgd_momentum_step(float* w, const float* g, float* velocity, size_t n, float lr, float momentum,
                       float weight_decay) {
  (void)w, (void)g, (void)velocity, (void)n, (void)lr, (void)momentum, (void)weight_decay;
  course::todo("02.1", "sgd_momentum_step");
}

// TODO(02.2): Adam; t is the step number (1 on the first call). For every i:
//     m[i] = beta1 * m[i] + (1 - beta1) * g[i]
//     v[i] = beta2 * v[i] + (1 - beta2) * g[i]^2
//     w[i] = w[i] - lr * m_hat / (sqrt(v_hat) + eps)
// with the bias-corrected m_hat = m[i] / (1 - beta1^t) and v_hat = v[i] / (1 - beta2^t).
// Compute the two corrections once, before the loop (std::pow).
void adam_step(float* w, const float* g, float* m, float* v, size_t n, float lr, float beta1, float beta2,
               float eps, int t) {
  (void)w, (void)g, (void)m, (void)v, (void)n, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)t;
  course::todo("02.2", "adam_step");
}

}  // namespace host_training
