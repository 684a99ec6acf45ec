// Lesson 08, step 08.1: the dense layer's forward and backward passes, lesson 04's GEMMs. The
// NCHW input is read as [batch x in_size()]: each example's C*H*W values are one row already.
#include "dense_layer.hpp"
#include "gemm_dense.hpp"

namespace mnist_gpu {

void DenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  gemm_dense::dense_forward(x, weight_.value, bias_.value, output(), batch, int(in_size()), plan_.out_c);
}

void DenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  gemm_dense::dense_backward(x, weight_.value, dy, input_grad(), weight_.grad, bias_.grad, batch, int(in_size()),
                             plan_.out_c);
}

}  // namespace mnist_gpu
