// Lesson 12, step 12.5: lesson 09's kernels as layers of lesson 08's network, their passes.
#include "course/error.hpp"
#include "fast_gpu_layers.hpp"
#include "fast_training.hpp"

namespace beyond_mnist {

void FastConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const host_layers::ConvShape s = shape(batch);
  // The tiled kernels read the weights in their own layouts, rewritten from W after every update.
  fast_training::conv_tiled_weights(s, weight_.value, tiled_weights_.data(), stream_);
  fast_training::conv2d_forward_tiled(s, x, tiled_weights_.data(), bias_.value, output(), stream_, statistics_);
}

void FastConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  fast_training::conv2d_backward_weight_tiled(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  if (input_grad_) fast_training::conv2d_backward_data_tiled(s, tiled_weights_.data(), dy, input_grad(), stream_);
}

void ImplicitConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  products_.conv_forward(shape(batch), x, weight_.value, bias_.value, output(), stream_);
}

void ImplicitConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  products_.conv_backward_weight(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  if (input_grad_)
    products_.conv_backward_data(s, weight_.value, dy, input_grad(), workspace_.data(), stream_);
}

void OtherConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  kernels_->forward(shape(batch), x, weight_.value, bias_.value, own_weights_.data(), output(), stream_);
}

void OtherConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  if (their_dw_)
    kernels_->backward_weight(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  else if (tiled_dw_)
    fast_training::conv2d_backward_weight_tiled(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  else
    products_.conv_backward_weight(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  // The input gradient from the weights the last forward wrote in their own layout.
  if (input_grad_) kernels_->backward_data(s, weight_.value, own_weights_.data(), dy, input_grad(), stream_);
}

void FastDenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  products_.dense_forward(x, weight_.value, bias_.value, output(), batch, int(in_size()), plan_.out_c, false,
                          workspace_.data(), stream_);
}

void FastDenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const int in = int(in_size()), out = plan_.out_c;
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  products_.dense_backward_weight(x, dy, weight_.grad, bias_.grad, batch, in, out, t.workspace, t.stream);
  if (input_grad_)
    products_.dense_backward_data(weight_.value, dy, nullptr, input_grad(), batch, in, out, workspace_.data(),
                                  stream_);
}

template <class Conv>
void ThinConvLayer<Conv>::forward(const float* x, int batch) {
  if (!thin_->fused()) return Conv::forward(x, batch);
  this->check_batch(batch, "forward");
  // The pool's output and argmax, written here; the relu's and the pool's own passes do nothing.
  fast_training::thin_conv_relu_maxpool(this->shape(batch), thin_->pool->shape(batch), x, this->weight_.value,
                                        this->bias_.value, thin_->pool->output(), thin_->pool->argmax(),
                                        this->stream_);
}

template <class Conv>
void ThinConvLayer<Conv>::backward(const float* x, const float* dy, int batch) {
  if (!thin_->fused()) return Conv::backward(x, dy, batch);
  this->check_batch(batch, "backward");
  if (!thin_->d_pooled) throw course::Error(this->name() + ": the pool's backward did not run before the conv's");
  fast_training::thin_conv_backward_weight(this->shape(batch), thin_->pool->shape(batch), x, thin_->pool->argmax(),
                                           thin_->d_pooled, this->weight_.grad, this->bias_.grad,
                                           thin_workspace_.data(), this->stream_);
}

// The two convolutions a thin first layer derives from (beyond_gpu_layers builds both).
template class ThinConvLayer<ImplicitConvLayer>;
template class ThinConvLayer<OtherConvLayer>;

void ReluPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  if (thin_ && thin_->fused()) return;  // the thin conv before it wrote the output and the argmax
  // Folded: the relu's input, not its (unwritten) output; max(relu(a), relu(b)) = relu(max(a, b)).
  const float* in = folded_ ? folded_->input() : x;
  fast_training::relu_maxpool_forward(shape(batch), in, output(), argmax_.data(), stream_);
}

void ReluPoolLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  if (thin_ && thin_->fused()) {  // the thin conv reads dy and the argmax itself
    thin_->d_pooled = dy;
    return;
  }
  // Folded: the argmax already carries the relu's mask, so this is dL/d(the relu's input).
  float* dx = folded_ ? folded_->input_grad() : input_grad();
  fast_training::relu_maxpool_backward(shape(batch), argmax_.data(), dy, dx, stream_);
}

void FoldedReluLayer::forward(const float* x, int batch) {
  input_ = x;
  if (training_)
    check_batch(batch, "forward");  // the pool does the work
  else
    ReluPoolLayer::forward(x, batch);
}

void FoldedReluLayer::backward(const float*, const float*, int batch) {
  check_batch(batch, "backward");  // the pool after it wrote input_grad()
}

void FusedSoftmaxCrossEntropy::forward(const float* logits, const int* labels, int batch) {
  check_batch(batch, "forward");
  fast_training::softmax_cross_entropy_fused(logits, labels, row_loss_.data(), dlogits_.data(), batch, classes_,
                                             stream_);
}

void FusedSoftmaxCrossEntropy::backward(const int*, int batch) { check_batch(batch, "backward"); }

}  // namespace beyond_mnist
