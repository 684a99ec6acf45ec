// Lesson 12, step 12.5: lesson 09's kernels as layers of lesson 08's network, their passes. YOUR FILE.
// Each layer's contract, members and kernels are in fast_gpu_layers.hpp; lesson 09's launchers in
// fast_training.hpp (the implicit GEMMs and dense products through the layer's products_: lesson
// 09's FP32 ones, or the same in another math). Every launch goes to the layer's stream_, and every pass starts with
// check_batch(batch, "forward") or check_batch(batch, "backward"). Uncomment the parameter names
// you use.
#include "course/error.hpp"
#include "fast_gpu_layers.hpp"
#include "fast_training.hpp"

namespace beyond_mnist {

// ---- convolutions and dense products -----------------------------------------------------------------
void FastConvLayer::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): the tiled kernels read the weights in their own layout: write tiled_weights_ from
  // the current W, then the forward pass (bias included) into output(), with statistics_ as its
  // `stats` (null unless a later layer asked for them).
  course::todo("12.5", "FastConvLayer::forward (09.10's tiled kernel)");
}

void FastConvLayer::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): dW and dbias by 09.11's kernel where aside_.target(...) sends them; dx (only when
  // input_grad_) by 09.10's kernel from the tiled weights the forward wrote, on stream_.
  course::todo("12.5", "FastConvLayer::backward (09.11's dW, 09.10's dx)");
}

void ImplicitConvLayer::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): 09.2's implicit GEMM (products_.conv_forward), bias included, into output().
  course::todo("12.5", "ImplicitConvLayer::forward (09.2)");
}

void ImplicitConvLayer::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): dW and dbias (09.4) where aside_.target(...) sends them; dx (09.3) only when
  // input_grad_, on stream_ with the layer's own workspace. Both by products_.
  course::todo("12.5", "ImplicitConvLayer::backward (09.4's dW, 09.3's dx)");
}

void OtherConvLayer::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): kernels_'s forward pass; it writes its own copy of the weights as it goes.
  course::todo("12.5", "OtherConvLayer::forward (the other kernels)");
}

void OtherConvLayer::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): dW and dbias by whichever kernels the constructor chose (their_dw_, tiled_dw_, else
  // products_'s implicit GEMM) where aside_.target(...) sends them; dx by kernels_ from the copy of
  // the weights the last forward wrote, only when input_grad_.
  course::todo("12.5", "OtherConvLayer::backward");
}

void FastDenseLayer::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): 09.7's fused product x W^T + bias (products_) into output(), no ReLU (a relu is a
  // layer of its own here).
  course::todo("12.5", "FastDenseLayer::forward (09.7)");
}

void FastDenseLayer::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): dW and dbias where aside_.target(...) sends them; dx (no mask) only when
  // input_grad_, on stream_. Both 09.7's, by products_.
  course::todo("12.5", "FastDenseLayer::backward (09.7)");
}

// ---- the thin first conv (09.13) ---------------------------------------------------------------------
template <class Conv>
void ThinConvLayer<Conv>::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): unless thin_ runs fused now, the conv it derives from does the pass. Fused: 09.13's
  // conv + ReLU + max-pool kernel writes the POOL's output and argmax (thin_->pool).
  course::todo("12.5", "ThinConvLayer::forward (09.13)");
}

template <class Conv>
void ThinConvLayer<Conv>::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): unless fused, the conv it derives from. Fused: dW and dbias straight from the
  // pool's argmax and the gradient the pool's backward left in thin_ (a missing one is an error,
  // not a zero), with thin_workspace_.
  course::todo("12.5", "ThinConvLayer::backward (09.13)");
}

// The two convolutions a thin first layer derives from (beyond_gpu_layers builds both).
template class ThinConvLayer<ImplicitConvLayer>;
template class ThinConvLayer<OtherConvLayer>;

// ---- relu, max-pool and the loss ---------------------------------------------------------------------
void ReluPoolLayer::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): 09.5's ReLU max-pool over shape(batch), writing output() and argmax_. Nothing when
  // a fused thin conv already wrote them; a folded relu's INPUT instead of x when there is one.
  course::todo("12.5", "ReluPoolLayer::forward (09.5)");
}

void ReluPoolLayer::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): through the argmax (09.5) into input_grad(), or into the folded relu's input_grad()
  // when there is one. A fused thin conv instead takes dy (thin_->d_pooled) and does the rest.
  course::todo("12.5", "ReluPoolLayer::backward (09.5)");
}

void FoldedReluLayer::forward(const float* /*x*/, int /*batch*/) {
  // TODO(12.5): remember x for the pool after it. Training: the pool does the work. Evaluation: a
  // relu as ReluPoolLayer's pass (the feature maps' picture reads its output).
  course::todo("12.5", "FoldedReluLayer::forward");
}

void FoldedReluLayer::backward(const float* /*x*/, const float* /*dy*/, int /*batch*/) {
  // TODO(12.5): the pool after it wrote input_grad() already.
  course::todo("12.5", "FoldedReluLayer::backward");
}

void FusedSoftmaxCrossEntropy::forward(const float* /*logits*/, const int* /*labels*/, int /*batch*/) {
  // TODO(12.5): 09.6's kernel: row_loss_ and dlogits_ at once (probs_ is not written).
  course::todo("12.5", "FusedSoftmaxCrossEntropy::forward (09.6)");
}

void FusedSoftmaxCrossEntropy::backward(const int* /*labels*/, int /*batch*/) {
  // TODO(12.5): the forward left nothing to do.
  course::todo("12.5", "FusedSoftmaxCrossEntropy::backward");
}

}  // namespace beyond_mnist
