// Lesson 08, step 08.8: the network's passes, chaining the layers of steps 08.1-08.5 (network.hpp).
// YOUR FILE: replace each course::todo line. The network has layers_ (a std::vector of
// std::unique_ptr<Layer>, input to logits), loss_ (the loss: lesson 04's
// softmax cross-entropy unless a later lesson plugs in another) and logits()
// (the last layer's output()). README "08.8 hint" if you are stuck.
#include "course/error.hpp"
#include "network.hpp"

namespace mnist_gpu {

void GpuNetwork::forward(const float* x, int batch) {
  // TODO(08.8): run every layer's forward in order on `batch` examples: layer 0 reads x, every
  // later layer reads the output() of the one before. logits() then holds the result.
  (void)x, (void)batch;  // delete with the todo line
  course::todo("08.8", "GpuNetwork::forward");
}

void GpuNetwork::forward_backward(const float* x, const int* labels, int batch) {
  // TODO(08.8): forward, then loss_.forward on logits() and labels, then loss_.backward, then every
  // layer's backward from the last to the first. Layer i's backward takes layer i's INPUT (what
  // its forward read) and dy = dL/d(its output): loss_.logits_grad() for the last layer, the
  // input_grad() of layer i + 1 for the others. Afterwards loss_.row_loss() and every parameter
  // gradient belong to this batch. Each layer and the loss run exactly one forward and one backward.
  (void)x, (void)labels, (void)batch;  // delete with the todo line
  course::todo("08.8", "GpuNetwork::forward_backward");
}

}  // namespace mnist_gpu
