// Lesson 08, step 08.1: the max-pool layer's forward and backward passes, lesson 06's argmax
// variant: the forward pass remembers where each maximum was, the backward pass sends dy there.
#include "maxpool_layer.hpp"
#include "pooling.hpp"

namespace mnist_gpu {

void MaxPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  pooling::maxpool_forward_argmax(shape(batch), x, output(), argmax_.data());
}

void MaxPoolLayer::backward(const float* /*x*/, const float* dy, int batch) {
  check_batch(batch, "backward");
  // A gather by the stored argmax: every input written once (0 where no window chose it).
  pooling::maxpool_backward_argmax(shape(batch), argmax_.data(), dy, input_grad());
}

}  // namespace mnist_gpu
