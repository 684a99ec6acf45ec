// Lesson 09, step 09.8: the fast network's passes, chained from this lesson's pieces.
#include "fast_network.hpp"

namespace fast_training {

void FastNetwork::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const float* in = x;
  for (ConvBlock& b : conv_) {
    conv_forward(b, in, batch);  // 09.2's implicit GEMM or 09.10's tiled kernel, bias included
    // ReLU and max-pool in one pass (09.5); the argmax keeps the ReLU's mask for the backward pass.
    pool_forward(b, batch);
    in = b.pooled.data();
  }
  for (DenseStage& d : dense_) {
    dense_forward(d, in, batch);  // 09.7's kernels (given helper), bias and ReLU included
    in = d.out_buf.data();
  }
}

void FastNetwork::forward_backward(const float* x, const int* labels, int batch) {
  forward(x, batch);
  softmax_cross_entropy_fused(logits(), labels, row_loss_.data(), dlogits_.data(), batch, spec_.classes, stream_);

  // Dense layers in reverse. Stage j's input is the previous stage's output (a ReLU output: its
  // positive entries are the mask of dx), or the last pool's output for the first stage (its
  // ReLU's mask is in the pool's argmax, so no mask here).
  const float* dy = dlogits_.data();
  for (size_t j = dense_.size(); j-- > 0;) {
    DenseStage& d = dense_[j];
    const float* in = j > 0 ? dense_[j - 1].out_buf.data() : conv_.empty() ? x : conv_.back().pooled.data();
    dense_backward_weight(d, in, dy, batch);  // 09.7's kernels (given helper)
    if (j == 0 && conv_.empty()) break;  // the network's input: nobody needs its gradient
    float* dx = j > 0 ? d.d_in.data() : conv_.back().d_pooled.data();
    const float* mask = j > 0 ? dense_[j - 1].out_buf.data() : nullptr;
    dense_backward_data(d, dy, mask, dx, batch);  // 09.7's kernels (given helper)
    dy = dx;
  }
  // Conv blocks in reverse: through the pool (and the ReLU, by the argmax), then the conv's dW
  // and dbias, then its dx into the block before, except for the first block.
  for (size_t i = conv_.size(); i-- > 0;) {
    ConvBlock& b = conv_[i];
    pool_backward(b, batch);  // 09.5: through the argmax (the ReLU's mask rides in it)
    const float* in = i > 0 ? conv_[i - 1].pooled.data() : x;
    conv_backward_weight(b, in, batch);                                      // 09.4 or 09.11
    if (i > 0) conv_backward_data(b, conv_[i - 1].d_pooled.data(), batch);  // 09.3 or 09.10
  }
}

}  // namespace fast_training
