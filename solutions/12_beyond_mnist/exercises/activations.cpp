// Lesson 12, step 12.1: sigmoid and tanh on the CPU, forward and backward.
#include <cmath>

#include "beyond_mnist.hpp"

namespace beyond_mnist {

namespace {

// exp only ever of a non-positive number: at most 1, never Inf. For x < 0 the same value is
// e / (1 + e) with e = exp(x) (numerator and denominator multiplied by exp(x)), which keeps
// its relative accuracy for tiny results instead of dividing 1 by a huge number.
float sigmoid(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

}  // namespace

void sigmoid_forward(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = sigmoid(x[i]);
}

void sigmoid_backward(const float* y, const float* dy, float* dx, size_t n) {
  for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * y[i] * (1.0f - y[i]);
}

void tanh_forward(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
}

void tanh_backward(const float* y, const float* dy, float* dx, size_t n) {
  for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * (1.0f - y[i] * y[i]);
}

}  // namespace beyond_mnist
