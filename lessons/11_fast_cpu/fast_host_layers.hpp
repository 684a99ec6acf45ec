#pragma once
// Lesson 11 (given): this lesson's layers as host layers of the framework (framework/host_layer.hpp),
// for a network built from a layer list: convolutions on 11.5's and 11.6's direct
// functions where they are thin and on 11.4's im2col and GEMM elsewhere (conv_forward_on_cpu), dense
// layers on 11.4's threaded GEMMs, ReLU and max-pool on lesson 01's, and the loss after them.
#include <cstddef>
#include <vector>

#include "framework/host_layer.hpp"

namespace fast_cpu {

// Registers conv, dense, relu and maxpool; a convolution's workspace is the context's scratch.
framework::HostLayerMakers& add_fast_host_layers(framework::HostLayerMakers& makers);

// `relu` is a ReLU whose output only `next`, a max-pool with non-overlapping windows, reads.
bool relu_into_pool(const framework::LayerPlan& relu, const framework::LayerPlan& next);
// This lesson's fusion pass over a made list (kFuseReluIntoPool): each such ReLU and its max-pool run as
// one pass each way (the max of ReLU is ReLU of the max, so the window's max is found on the ReLU's
// input and clamped at 0). The ReLU stays in the list, handing its input on forward and the pool's
// input gradient on backward: a pass and a trip through the activations saved each way.
constexpr const char* kFuseReluIntoPool = "fuse each ReLU into the max-pool after it";
void fuse_relu_into_pool(framework::HostLayerMakers::Layers& layers);

// The mean softmax-cross-entropy of a batch (lesson 01's), with its probabilities and the logits'
// gradient; with mean_over > 0, the gradient of the mean over mean_over examples, of which the batch
// is a part (11.7's shards).
class SoftmaxCrossEntropyOnCpu : public framework::HostLoss {
 public:
  explicit SoftmaxCrossEntropyOnCpu(int classes) : classes_(classes) {}
  void set_mean_over(int mean_over) { mean_over_ = mean_over; }
  float forward_backward(const float* logits, const int* labels, int batch) override;
  const std::vector<float>& probabilities() const override { return probs_; }
  const float* logits_grad() const override { return dlogits_.data(); }

 private:
  int classes_;
  int mean_over_ = 0;
  std::vector<float> probs_, dlogits_;
};

}  // namespace fast_cpu
