// Lesson 08, step 08.4: the forward and backward passes of every layer, each a call of a
// lesson 03-07 function on device buffers, and the network's passes that chain them.
#include "conv_direct.hpp"
#include "first_kernels.hpp"
#include "gemm_dense.hpp"
#include "im2col.hpp"
#include "network.hpp"
#include "pooling.hpp"

namespace mnist_gpu {

// ---- conv: lesson 05 (direct) or lesson 07 (im2col + GEMM) ----------------------------------------
void ConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const host_layers::ConvShape s = shape(batch);
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

// ---- ReLU: lesson 03 -------------------------------------------------------------------------------
void ReluLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  first_kernels::relu_forward(x, output(), size_t(batch) * in_size());
}

void ReluLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  // The gradient passes where the INPUT was positive.
  first_kernels::relu_backward(x, dy, input_grad(), size_t(batch) * in_size());
}

// ---- max-pool: lesson 06, argmax variant ------------------------------------------------------------
void MaxPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  pooling::maxpool_forward_argmax(shape(batch), x, output(), argmax_.data());
}

void MaxPoolLayer::backward(const float* /*x*/, const float* dy, int batch) {
  check_batch(batch, "backward");
  pooling::maxpool_backward_argmax(shape(batch), argmax_.data(), dy, input_grad());
}

// ---- dense: lesson 04 --------------------------------------------------------------------------------
void DenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  gemm_dense::dense_forward(x, weight_.value, bias_.value, output(), batch, int(in_size()), plan_.out_c);
}

void DenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  gemm_dense::dense_backward(x, weight_.value, dy, input_grad(), weight_.grad, bias_.grad, batch, int(in_size()),
                             plan_.out_c);
}

// ---- softmax + cross-entropy: lesson 04 ---------------------------------------------------------------
void SoftmaxCrossEntropy::forward(const float* logits, const int* labels, int batch) {
  check_batch(batch, "forward");
  gemm_dense::softmax_cross_entropy_forward(logits, labels, probs_.data(), row_loss_.data(), batch, classes_);
}

void SoftmaxCrossEntropy::backward(const int* labels, int batch) {
  check_batch(batch, "backward");
  gemm_dense::softmax_cross_entropy_backward(probs_.data(), labels, dlogits_.data(), batch, classes_);
}

// ---- the network ----------------------------------------------------------------------------------------
void GpuNetwork::forward(const float* x, int batch) {
  // Layer i reads layer i-1's output; every output stays in its own buffer, so after this loop
  // each layer's input is still there for the backward pass.
  const float* in = x;
  for (auto& layer : layers_) {
    layer->forward(in, batch);
    in = layer->output();
  }
}

void GpuNetwork::forward_backward(const float* x, const int* labels, int batch) {
  forward(x, batch);
  loss_.forward(logits(), labels, batch);
  loss_.backward(labels, batch);
  // Backward in reverse: layer i gets dL/d(its output) from layer i+1 (or from the loss) and
  // its own input from layer i-1 (or x). All on one stream: no waiting between layers.
  const float* dy = loss_.logits_grad();
  for (size_t i = layers_.size(); i-- > 0;) {
    const float* in = i == 0 ? x : layers_[i - 1]->output();
    layers_[i]->backward(in, dy, batch);
    dy = layers_[i]->input_grad();
  }
}

}  // namespace mnist_gpu
