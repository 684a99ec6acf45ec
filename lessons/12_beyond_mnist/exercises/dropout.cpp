// Lesson 12, step 12.2: dropout on the CPU, forward and backward. YOUR FILE.
// The contract is in beyond_mnist.hpp, the mask in dropout_mask.hpp (given).
// Uncomment the parameter names when you write a function.
#include "beyond_mnist.hpp"
#include "course/error.hpp"
#include "dropout_mask.hpp"

namespace beyond_mnist {

void dropout_forward(const float* /*x*/, float* /*y*/, size_t /*n*/, float /*rate*/, uint64_t /*key*/) {
  // TODO(12.2): check_dropout_rate("dropout_forward", rate) before anything else; then for every
  // i < n: y[i] = x[i] * dropout_scale(rate) where dropout_keeps(key, i, rate), else 0. One float
  // multiply by the scale computed once: the GPU must give the same bits.
  course::todo("12.2", "dropout_forward (y = keep ? x * scale : 0)");
}

void dropout_backward(const float* /*dy*/, float* /*dx*/, size_t /*n*/, float /*rate*/, uint64_t /*key*/) {
  // TODO(12.2): check_dropout_rate("dropout_backward", rate) first; then dx[i] = dy[i] * scale
  // where the forward pass kept element i (the same key: the same mask), else 0.
  course::todo("12.2", "dropout_backward (dx = keep ? dy * scale : 0)");
}

}  // namespace beyond_mnist
