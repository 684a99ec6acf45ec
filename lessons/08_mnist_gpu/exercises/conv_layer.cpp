// Lesson 08, step 08.1: the convolution layer's forward and backward passes (conv_layer.hpp).
// YOUR FILE: replace each course::todo line with a call of lesson 05's or lesson 07's functions.
// The layer has: shape(batch) (lesson 01's ConvShape for this batch), algorithm_ (direct or
// im2col, already chosen), weight_ and bias_ (.value and .grad, device pointers), workspace_,
// output() and input_grad(). README "08.1 hint" if you are stuck.
#include "conv_direct.hpp"
#include "conv_layer.hpp"
#include "course/error.hpp"
#include "im2col.hpp"

namespace mnist_gpu {

void ConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");  // given: throws outside 1..max_batch and tells the profile
  // TODO(08.1): output() [batch x out_c x out_h x out_w] = conv(x, weight_.value) + bias_.value for
  // the first `batch` examples of x. algorithm_ direct: lesson 05's conv_direct::conv2d_forward;
  // im2col: lesson 07's im2col::conv2d_forward_gemm with workspace_.
  (void)x;  // delete with the todo line
  course::todo("08.1", "ConvLayer::forward");
}

void ConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");  // given
  // TODO(08.1): from x (this layer's input) and dy = dL/d output(), OVERWRITE input_grad() = dL/dx,
  // weight_.grad = dL/dW and bias_.grad = dL/dbias (they may hold garbage). direct: lesson 05's
  // conv2d_backward_input and the race-free conv2d_backward_weight (with workspace_); im2col:
  // lesson 07's conv2d_backward_gemm (with workspace_).
  (void)x, (void)dy;  // delete with the todo line
  course::todo("08.1", "ConvLayer::backward");
}

}  // namespace mnist_gpu
