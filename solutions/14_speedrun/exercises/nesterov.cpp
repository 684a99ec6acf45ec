// Lesson 14, step 14.4: SGD with Nesterov momentum on the CPU, one step over n parameters.
#include "speedrun.hpp"

namespace speedrun {

void nesterov_step(float* w, const float* grad, float* velocity, size_t n, float lr, float momentum,
                   float weight_decay) {
  check_nesterov("nesterov_step", lr, momentum, weight_decay);
  for (size_t i = 0; i < n; ++i) {
    const float g = grad[i] + weight_decay * w[i];
    const float v = momentum * velocity[i] + g;
    velocity[i] = v;
    // The step looks ahead: the gradient plus where the NEW velocity is about to carry w.
    w[i] -= lr * (g + momentum * v);
  }
}

}  // namespace speedrun
