// Lesson 02, step 02.1: the two optimizers. Each call updates n values in place.
#include <cmath>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.1): one step of SGD with momentum as torch.optim.SGD computes it (dampening 0, no
// Nesterov), in place for every i < n: the weight decay goes INTO the gradient
// (g[i] + weight_decay * w[i]), the velocity becomes velocity[i] = momentum * velocity[i] + that
// gradient, and w[i] moves by -lr * (the new velocity[i]). w and velocity are updated; g is
// read-only. With momentum 0 this is plain SGD (the old velocity is forgotten).
void sgd_momentum_step(float* w, const float* g, float* velocity, size_t n, float lr, float momentum,
                       float weight_decay) {
  (void)w, (void)g, (void)velocity, (void)n, (void)lr, (void)momentum, (void)weight_decay;
  course::todo("02.1", "sgd_momentum_step");
}

// TODO(02.1): one step of Adam as torch.optim.Adam computes it (no weight decay), in place for
// every i < n: m[i] and v[i] become the moving averages of g[i] (rate beta1) and of g[i]^2 (rate
// beta2), and w[i] moves by -lr * m_hat / (sqrt(v_hat) + eps), with the bias corrections
// m_hat = m[i] / (1 - beta1^t) and v_hat = v[i] / (1 - beta2^t). eps is added OUTSIDE the
// square root. t is the step number: 1 on the first call (t = 0 would divide by zero).
void adam_step(float* w, const float* g, float* m, float* v, size_t n, float lr, float beta1, float beta2,
               float eps, int t) {
  (void)w, (void)g, (void)m, (void)v, (void)n, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)t;
  course::todo("02.1", "adam_step");
}

}  // namespace host_training
