// Lesson 08, step 08.1: the max-pool layer's forward and backward passes (maxpool_layer.hpp).
// YOUR FILE: replace each course::todo line with a call of lesson 06's argmax variant. The layer
// has shape(batch) (lesson 01's PoolShape for this batch), argmax_ (a device int per output, for
// max_batch examples), output() and input_grad(). README "08.1 hint" if you are stuck.
#include "course/error.hpp"
#include "maxpool_layer.hpp"
#include "pooling.hpp"

namespace mnist_gpu {

void MaxPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");  // given: throws outside 1..max_batch and tells the profile
  // TODO(08.1): output() = the maximum of every window of x, and argmax_ = the flat index into x of
  // each window's FIRST maximum (lesson 06's pooling::maxpool_forward_argmax).
  (void)x;  // delete with the todo line
  course::todo("08.1", "MaxPoolLayer::forward");
}

void MaxPoolLayer::backward(const float* /*x*/, const float* dy, int batch) {
  check_batch(batch, "backward");  // given
  // TODO(08.1): OVERWRITE input_grad(): each dy goes to the input that argmax_ (stored by the last
  // forward) names, every other input gets 0, overlapping windows add (lesson 06's
  // pooling::maxpool_backward_argmax). x is not needed.
  (void)dy;  // delete with the todo line
  course::todo("08.1", "MaxPoolLayer::backward");
}

}  // namespace mnist_gpu
