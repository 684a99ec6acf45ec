// Lesson 08, step 08.1: the dense layer's forward and backward passes (dense_layer.hpp).
// YOUR FILE: replace each course::todo line with a call of lesson 04's functions. The layer has
// in_size() (inputs per example: C*H*W of the layer before), plan_.out_c (outputs), weight_ and
// bias_ (.value and .grad, device pointers), output() and input_grad().
// README "08.1 hint" if you are stuck.
#include "course/error.hpp"
#include "dense_layer.hpp"
#include "gemm_dense.hpp"

namespace mnist_gpu {

void DenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");  // given: throws outside 1..max_batch and tells the profile
  // TODO(08.1): output() [batch x out] = x [batch x in] * W^T + bias with W = weight_.value
  // [out x in] (lesson 04's gemm_dense::dense_forward).
  (void)x;  // delete with the todo line
  course::todo("08.1", "DenseLayer::forward");
}

void DenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");  // given
  // TODO(08.1): from x (this layer's input) and dy [batch x out], OVERWRITE input_grad() = dy * W,
  // weight_.grad = dy^T * x and bias_.grad = the column sums of dy (lesson 04's
  // gemm_dense::dense_backward).
  (void)x, (void)dy;  // delete with the todo line
  course::todo("08.1", "DenseLayer::backward");
}

}  // namespace mnist_gpu
