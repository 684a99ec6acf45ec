// Lesson 08, step 08.8: the network's passes, chaining the layers of steps 08.1-08.5 exactly as
// lesson 02's HostNetwork chains lesson 01's.
#include "network.hpp"

namespace mnist_gpu {

void GpuNetwork::forward(const float* x, int batch) {
  // Layer i reads layer i-1's output; every output stays in its own buffer, so after this loop
  // each layer's input is still there for the backward pass.
  const float* in = x;
  for (auto& layer : layers_) {
    layer->forward(in, batch);
    in = layer->output();
  }
}

void GpuNetwork::forward_backward(const float* x, const int* labels, int batch) {
  forward(x, batch);
  loss_.forward(logits(), labels, batch);
  loss_.backward(labels, batch);
  // Backward in reverse: layer i gets dL/d(its output) from layer i+1 (or from the loss) and
  // its own input from layer i-1 (or x). All on one stream: no waiting between layers.
  const float* dy = loss_.logits_grad();
  for (size_t i = layers_.size(); i-- > 0;) {
    const float* in = i == 0 ? x : layers_[i - 1]->output();
    layers_[i]->backward(in, dy, batch);
    dy = layers_[i]->input_grad();
  }
}

}  // namespace mnist_gpu
