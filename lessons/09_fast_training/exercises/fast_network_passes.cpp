// Lesson 09, step 09.8: the fast network's passes. YOUR FILE: forward and forward_backward,
// each a chain of this lesson's functions (fast_training.hpp) over the buffers of fast_network.hpp.
#include "course/error.hpp"
#include "fast_network.hpp"

namespace fast_training {

void FastNetwork::forward(const float* x, int batch) {
  check_batch(batch, "forward");  // given
  // TODO(09.8): each conv block: its forward (given: conv_forward, bias included) into conv_out, then 09.5's fused
  // ReLU + max-pool into pooled and argmax (given: pool_forward); then each dense stage: its forward
  // (given: dense_forward, 09.7's kernels, the ReLU when d.relu) into out_buf. Every call on stream_.
  (void)x;
  course::todo("09.8", "FastNetwork::forward");
}

void FastNetwork::forward_backward(const float* x, const int* labels, int batch) {
  // TODO(09.8): forward; 09.6's fused loss into row_loss_ and dlogits_; then backward in reverse:
  // each dense stage's dW and dbias (given: dense_backward_weight, 09.7's kernels) and, unless it reads the network's input, its dx (given: dense_backward_data),
  // masked by the previous stage's output when that is a ReLU output (the first stage reads the
  // last pool's output: no mask, the argmax holds it); each conv block: 09.5's backward through the
  // argmax (given: pool_backward) into d_conv_out, its dW and dbias (given: conv_backward_weight),
  // and its dx (given: conv_backward_data) into the block before, except for the first block
  // (nobody needs the input's gradient).
  (void)x, (void)labels, (void)batch;
  course::todo("09.8", "FastNetwork::forward_backward");
}

}  // namespace fast_training
