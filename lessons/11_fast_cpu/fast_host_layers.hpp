#pragma once
// Lesson 11 (given): this lesson's layers as host layers of the framework (framework/host_layer.hpp),
// for a network built from a layer list: convolutions on 11.5's and 11.6's direct
// functions where they are thin and on 11.4's im2col and GEMM elsewhere (conv_forward_on_cpu), dense
// layers on 11.4's threaded GEMMs, ReLU and max-pool on lesson 01's, and the loss after them.
#include <vector>

#include "framework/host_layer.hpp"

namespace fast_cpu {

// Registers conv, dense, relu and maxpool; a convolution's workspace is the context's scratch.
framework::HostLayerMakers& add_fast_host_layers(framework::HostLayerMakers& makers);

// The mean softmax-cross-entropy of a batch (lesson 01's), with its probabilities and the logits'
// gradient.
class SoftmaxCrossEntropyOnCpu : public framework::HostLoss {
 public:
  explicit SoftmaxCrossEntropyOnCpu(int classes) : classes_(classes) {}
  float forward_backward(const float* logits, const int* labels, int batch) override;
  const std::vector<float>& probabilities() const override { return probs_; }
  const float* logits_grad() const override { return dlogits_.data(); }

 private:
  int classes_;
  std::vector<float> probs_, dlogits_;
};

}  // namespace fast_cpu
