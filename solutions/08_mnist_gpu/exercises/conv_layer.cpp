// Lesson 08, step 08.1: the convolution layer's forward and backward passes, one call of lesson
// 05's or lesson 07's functions each, on this batch's shape.
#include "conv_direct.hpp"
#include "conv_layer.hpp"
#include "im2col.hpp"

namespace mnist_gpu {

void ConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const host_layers::ConvShape s = shape(batch);  // `batch` images, not max_batch: the last batch is smaller
  if (algorithm_ == ConvAlgorithm::direct)
    conv_direct::conv2d_forward(s, x, weight_.value, bias_.value, output());
  else
    im2col::conv2d_forward_gemm(s, x, weight_.value, bias_.value, output(), workspace_);
}

void ConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  if (algorithm_ == ConvAlgorithm::direct) {
    conv_direct::conv2d_backward_input(s, weight_.value, dy, input_grad());
    // The race-free weight gradient: the same bits on every run.
    conv_direct::conv2d_backward_weight(s, x, dy, weight_.grad, bias_.grad, workspace_);
  } else {
    im2col::conv2d_backward_gemm(s, x, weight_.value, dy, input_grad(), weight_.grad, bias_.grad, workspace_);
  }
}

}  // namespace mnist_gpu
