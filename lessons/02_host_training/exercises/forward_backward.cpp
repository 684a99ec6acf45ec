// Lesson 02, step 02.2: one training pass of the network: forward keeping what backward
// needs, the loss, then backward through the layers in reverse order.
#include <algorithm>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.2): one training pass over x [batch x C x H x W] with labels[batch], built from lesson
// 01's layers (namespace host_layers: conv2d_*, relu_*, maxpool_*, dense_*,
// softmax_cross_entropy_*), layer by layer as plan_ lists them (HostNetwork::forward in
// network.cpp walks them the same way).
//   * Returns the MEAN softmax-cross-entropy loss of the batch; probabilities() (probs_) then
//     holds the batch's softmax output [batch x classes].
//   * OVERWRITES every Parameter::grad with d(mean loss)/d(value) (never adds to an old grad).
//   * Works for any batch, also one different from the last call's: size the buffers for this
//     call's batch with prepare(batch) first.
//   * ReLU's backward takes the layer's INPUT; max-pool's backward takes the argmax its forward
//     wrote (pool windows may overlap). So every layer's input must still be there for backward.
float HostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  (void)x, (void)labels, (void)batch;
  course::todo("02.2", "HostNetwork::forward_backward");
}

}  // namespace host_training
