// Lesson 12, step 12.3: Adadelta on the CPU, one step over n parameters.
#include <cmath>

#include "beyond_mnist.hpp"

namespace beyond_mnist {

void adadelta_step(float* w, const float* grad, float* square_avg, float* delta_avg, size_t n, float lr, float rho,
                   float eps, float weight_decay) {
  check_adadelta("adadelta_step", lr, rho, eps);
  for (size_t i = 0; i < n; ++i) {
    const float g = grad[i] + weight_decay * w[i];
    const float sq = rho * square_avg[i] + (1.0f - rho) * g * g;
    // PyTorch's order: sqrt(delta_avg + eps) / sqrt(square_avg + eps), then times g. The ratio is
    // Adadelta's point: past step sizes over past gradients gives the step the units of w.
    const float delta = std::sqrt(delta_avg[i] + eps) / std::sqrt(sq + eps) * g;
    square_avg[i] = sq;
    delta_avg[i] = rho * delta_avg[i] + (1.0f - rho) * delta * delta;
    w[i] -= lr * delta;
  }
}

}  // namespace beyond_mnist
