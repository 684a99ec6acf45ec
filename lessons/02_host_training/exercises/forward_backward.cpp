// Lesson 02, step 02.3: one training pass of the network: forward keeping what backward
// needs, the loss, then backward through the layers in reverse order.
#include <algorithm>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.3): write the training pass with lesson 01's layers (namespace host_layers).
// HostNetwork::forward in network.cpp walks the layers the same way; read it first.
//   0. prepare(batch): acts_[i] and grads_[i] then hold batch * plan_[i].in_size() floats,
//      acts_.back() / grads_.back() batch * classes, argmax_[i] one int per max-pool output.
//      Copy x into acts_[0].
//   1. Forward, i = 0 .. plan_.size()-1: layer i reads acts_[i] and writes acts_[i + 1], so every
//      layer's input is kept for its backward pass. By plan_[i].spec.kind:
//        conv:    conv2d_forward(conv_shape(i, batch), in, weight_of(i), bias_of(i), out)
//        relu:    relu_forward(in, out, acts_[i].size())
//        maxpool: maxpool_forward(pool_shape(i, batch), in, out, argmax_[i].data())
//        dense:   dense_forward(in, weight_of(i), bias_of(i), out, batch, in_size(), plan_[i].out_c)
//   2. loss = softmax_cross_entropy_forward(logits = acts_.back(), labels, probs_, batch, classes);
//      softmax_cross_entropy_backward(probs_, ...) writes dL/dlogits into grads_.back().
//   3. Backward, i = plan_.size()-1 down to 0: from grads_[i + 1] (dL/d output) and acts_[i] (the
//      input) write grads_[i] (dL/d input) and, for conv and dense, weight_grad_of(i), bias_grad_of(i).
//      ReLU's backward takes its INPUT acts_[i]; max-pool's takes argmax_[i].
//   4. Return the loss.
float HostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  (void)x, (void)labels, (void)batch;
  course::todo("02.3", "HostNetwork::forward_backward");
}

}  // namespace host_training
