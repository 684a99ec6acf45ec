// Lesson 12, step 12.2: dropout on the CPU, forward and backward.
#include "beyond_mnist.hpp"
#include "dropout_mask.hpp"

namespace beyond_mnist {

namespace {

// Forward and backward are the same map: keep and scale, or 0. The mask comes from the key.
void apply_mask(const float* in, float* out, size_t n, float rate, uint64_t key) {
  const float scale = dropout_scale(rate);
  for (size_t i = 0; i < n; ++i) out[i] = dropout_keeps(key, i, rate) ? in[i] * scale : 0.0f;
}

}  // namespace

void dropout_forward(const float* x, float* y, size_t n, float rate, uint64_t key) {
  check_dropout_rate("dropout_forward", rate);
  apply_mask(x, y, n, rate, key);
}

void dropout_backward(const float* dy, float* dx, size_t n, float rate, uint64_t key) {
  check_dropout_rate("dropout_backward", rate);
  apply_mask(dy, dx, n, rate, key);
}

}  // namespace beyond_mnist
