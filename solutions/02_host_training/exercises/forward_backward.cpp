// Lesson 02, step 02.2: one training pass of the network. Forward through the layers keeping
// every layer's input (backward needs it), the loss, then backward through the layers in reverse.
#include <algorithm>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

float HostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  prepare(batch);  // acts_[i], grads_[i] hold batch * plan_[i].in_size() values; argmax_, probs_ sized too
  const size_t layers = plan_.size();
  std::copy(x, x + acts_[0].size(), acts_[0].begin());

  // Forward: layer i reads acts_[i] and writes acts_[i + 1]. Nothing is overwritten, so after the
  // loop every layer's input is still there for its backward pass.
  for (size_t i = 0; i < layers; ++i) {
    const LayerPlan& p = plan_[i];
    const float* in = acts_[i].data();
    float* out = acts_[i + 1].data();
    switch (p.spec.kind) {
      case LayerKind::conv:
        host_layers::conv2d_forward(conv_shape(i, batch), in, weight_of(i), bias_of(i), out);
        break;
      case LayerKind::relu:
        host_layers::relu_forward(in, out, acts_[i].size());
        break;
      case LayerKind::maxpool:  // argmax records which input won, for the backward pass
        host_layers::maxpool_forward(pool_shape(i, batch), in, out, argmax_[i].data());
        break;
      case LayerKind::dense:
        host_layers::dense_forward(in, weight_of(i), bias_of(i), out, batch, static_cast<int>(p.in_size()), p.out_c);
        break;
      default:  // other layer kinds: the constructor refuses them, so this is never reached
        throw course::Error("forward_backward: layer '" + layer_text(p.spec) + "' is not one of lesson 02's");
    }
  }

  // Loss and its gradient with respect to the logits (acts_.back()).
  const float loss = host_layers::softmax_cross_entropy_forward(acts_.back().data(), labels, probs_.data(), batch,
                                                                spec_.classes);
  host_layers::softmax_cross_entropy_backward(probs_.data(), labels, grads_.back().data(), batch, spec_.classes);

  // Backward: layer i turns dL/d acts_[i + 1] into dL/d acts_[i] (and its parameters' gradients).
  // lesson 01's backward functions overwrite their outputs, so nothing needs zeroing first.
  for (size_t i = layers; i-- > 0;) {
    const LayerPlan& p = plan_[i];
    const float* in = acts_[i].data();
    const float* dout = grads_[i + 1].data();
    float* din = grads_[i].data();
    switch (p.spec.kind) {
      case LayerKind::conv:
        host_layers::conv2d_backward(conv_shape(i, batch), in, weight_of(i), dout, din, weight_grad_of(i),
                                     bias_grad_of(i));
        break;
      case LayerKind::relu:  // ReLU's backward looks at its INPUT: the gradient passes where x > 0
        host_layers::relu_backward(in, dout, din, acts_[i].size());
        break;
      case LayerKind::maxpool:
        host_layers::maxpool_backward(pool_shape(i, batch), argmax_[i].data(), dout, din);
        break;
      case LayerKind::dense:
        host_layers::dense_backward(in, weight_of(i), dout, din, weight_grad_of(i), bias_grad_of(i), batch,
                                    static_cast<int>(p.in_size()), p.out_c);
        break;
      default:
        throw course::Error("forward_backward: layer '" + layer_text(p.spec) + "' is not one of lesson 02's");
    }
  }
  return loss;
}

}  // namespace host_training
