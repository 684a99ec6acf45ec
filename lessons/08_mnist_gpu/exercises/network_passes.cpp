// Lesson 08, step 08.4: the forward and backward passes of every layer, each a call of a
// lesson 03-07 function on device buffers, and the network's passes that chain them.
// YOUR FILE: replace every course::todo("08.4", ...) line. Read layers.hpp and network.hpp first:
// each layer has output(), input_grad(), its ParamView weight_ / bias_ (.value, .grad), shape(batch)
// for conv and pool, in_size() values per example, plan_.out_c output units.
#include "conv_direct.hpp"
#include "first_kernels.hpp"
#include "gemm_dense.hpp"
#include "im2col.hpp"
#include "network.hpp"
#include "pooling.hpp"

namespace mnist_gpu {

// Every layer function starts with check_batch(batch, "forward" / "backward") (already there).

// ---- conv: lesson 05 (direct) or lesson 07 (im2col + GEMM) ----------------------------------------
void ConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  // TODO(08.4): algorithm_ direct: conv_direct::conv2d_forward(shape(batch), x, W, bias, output());
  // im2col: im2col::conv2d_forward_gemm(..., workspace_).
  (void)x;
  course::todo("08.4", "ConvLayer::forward");
}

void ConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  // TODO(08.4): direct: conv2d_backward_input (-> input_grad()) and the race-free
  // conv2d_backward_weight (-> weight_.grad, bias_.grad, with workspace_); im2col: conv2d_backward_gemm.
  (void)x, (void)dy;
  course::todo("08.4", "ConvLayer::backward");
}

// ---- ReLU: lesson 03 -------------------------------------------------------------------------------
void ReluLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  // TODO(08.4): first_kernels::relu_forward over batch * in_size() values into output().
  (void)x;
  course::todo("08.4", "ReluLayer::forward");
}

void ReluLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  // TODO(08.4): first_kernels::relu_backward(x, dy, input_grad(), ...): it looks at the INPUT x.
  (void)x, (void)dy;
  course::todo("08.4", "ReluLayer::backward");
}

// ---- max-pool: lesson 06, argmax variant ------------------------------------------------------------
void MaxPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  // TODO(08.4): pooling::maxpool_forward_argmax(shape(batch), x, output(), argmax_.data()).
  (void)x;
  course::todo("08.4", "MaxPoolLayer::forward");
}

void MaxPoolLayer::backward(const float* /*x*/, const float* dy, int batch) {
  check_batch(batch, "backward");
  // TODO(08.4): pooling::maxpool_backward_argmax with the argmax_ the forward pass stored.
  (void)dy;
  course::todo("08.4", "MaxPoolLayer::backward");
}

// ---- dense: lesson 04 --------------------------------------------------------------------------------
void DenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  // TODO(08.4): gemm_dense::dense_forward with in = in_size(), out = plan_.out_c.
  (void)x;
  course::todo("08.4", "DenseLayer::forward");
}

void DenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  // TODO(08.4): gemm_dense::dense_backward -> input_grad(), weight_.grad, bias_.grad.
  (void)x, (void)dy;
  course::todo("08.4", "DenseLayer::backward");
}

// ---- softmax + cross-entropy: lesson 04 ---------------------------------------------------------------
void SoftmaxCrossEntropy::forward(const float* logits, const int* labels, int batch) {
  check_batch(batch, "forward");
  // TODO(08.4): gemm_dense::softmax_cross_entropy_forward -> probs_, row_loss_.
  (void)logits, (void)labels;
  course::todo("08.4", "SoftmaxCrossEntropy::forward");
}

void SoftmaxCrossEntropy::backward(const int* labels, int batch) {
  check_batch(batch, "backward");
  // TODO(08.4): gemm_dense::softmax_cross_entropy_backward(probs_, labels, dlogits_, ...).
  (void)labels;
  course::todo("08.4", "SoftmaxCrossEntropy::backward");
}

// ---- the network ----------------------------------------------------------------------------------------
void GpuNetwork::forward(const float* x, int batch) {
  // TODO(08.4): layer 0 reads x, layer i reads layers_[i - 1]->output(); call layers_[i]->forward.
  (void)x, (void)batch;
  course::todo("08.4", "GpuNetwork::forward");
}

void GpuNetwork::forward_backward(const float* x, const int* labels, int batch) {
  // TODO(08.4): forward(x, batch); loss_.forward(logits(), labels, batch); loss_.backward(labels, batch);
  // then for i = last .. 0: layers_[i]->backward(input of layer i, dy, batch), where dy starts as
  // loss_.logits_grad() and then is the input_grad() of the layer just done.
  (void)x, (void)labels, (void)batch;
  course::todo("08.4", "GpuNetwork::forward_backward");
}

}  // namespace mnist_gpu
