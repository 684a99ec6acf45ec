// Lesson 08, step 08.1: the ReLU layer's forward and backward passes, lesson 03's kernels over
// the whole batch (every value is independent: the tensor's shape does not matter).
#include "first_kernels.hpp"
#include "relu_layer.hpp"

namespace mnist_gpu {

void ReluLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  first_kernels::relu_forward(x, output(), size_t(batch) * in_size());
}

void ReluLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  // The gradient passes where the INPUT was positive.
  first_kernels::relu_backward(x, dy, input_grad(), size_t(batch) * in_size());
}

}  // namespace mnist_gpu
