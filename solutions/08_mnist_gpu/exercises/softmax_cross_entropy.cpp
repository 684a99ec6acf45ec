// Lesson 08, step 08.1: the loss's forward and backward passes, lesson 04's softmax-cross-entropy.
#include "gemm_dense.hpp"
#include "softmax_cross_entropy.hpp"

namespace mnist_gpu {

void SoftmaxCrossEntropy::forward(const float* logits, const int* labels, int batch) {
  check_batch(batch, "forward");
  gemm_dense::softmax_cross_entropy_forward(logits, labels, probs_.data(), row_loss_.data(), batch, classes_);
}

void SoftmaxCrossEntropy::backward(const int* labels, int batch) {
  check_batch(batch, "backward");
  // Divided by `batch`, the examples actually there (the last batch of an epoch is smaller).
  gemm_dense::softmax_cross_entropy_backward(probs_.data(), labels, dlogits_.data(), batch, classes_);
}

}  // namespace mnist_gpu
