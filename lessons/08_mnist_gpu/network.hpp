#pragma once
// GpuNetwork: lesson 02's ModelSpec built from the GPU layers (conv_layer.hpp, relu_layer.hpp,
// maxpool_layer.hpp, dense_layer.hpp), its parameters in one ParameterStore (the framework's), the loss
// (softmax_cross_entropy.hpp) at the end, kept by the framework's LayerStack. The framework chains
// the layers exactly as lesson 02's HostNetwork chains lesson 01's on the CPU (your 02.2), so the
// same weights and batches give the same losses and gradients (up to float rounding): the test
// 08-train_step checks that, once the layers of 08.1 are written.
//
//   x --> layer 0 --> layer 1 --> ... --> layer L-1 --> logits --> softmax-CE --> row losses
//   dx <-- ...      <-- input_grad() <--  ...        <-- logits_grad() <--
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "conv_layer.hpp"
#include "course/device_buffer.hpp"
#include "dense_layer.hpp"
#include "framework/layer_stack.hpp"
#include "host_training.hpp"
#include "layer.hpp"
#include "maxpool_layer.hpp"
#include "framework/parameter_store.hpp"
#include "relu_layer.hpp"
#include "softmax_cross_entropy.hpp"

namespace mnist_gpu {

// This lesson's layers registered with the framework (framework/layer_makers.hpp): conv running
// `conv` (lesson 05's direct kernels, lesson 07's im2col, or each layer's choice), relu, maxpool and
// dense. A later lesson adds its kinds to these, or takes some over.
framework::DeviceLayerMakers& add_gpu_layers(framework::DeviceLayerMakers& makers, ConvAlgorithm conv);
std::shared_ptr<const framework::DeviceLayerMakers> gpu_layers(ConvAlgorithm conv);

// A loss plugged in (softmax-cross-entropy on a stream, a fused kernel, a regression's loss):
// builds it for `classes` (the outputs of the last layer) and max_batch; nullptr leaves this lesson's.
using LossMaker = std::function<std::unique_ptr<framework::DeviceLoss>(int classes, int max_batch)>;

// A framework LayerStack (framework/layer_stack.hpp): the framework keeps the layers, the loss and the
// parameters and answers what a trainer asks of a network; this lesson builds the layers and writes
// the passes. The trainer and the evaluation take it as a DeviceNetwork, the pictures and the profile
// as a LayeredNetwork.
class GpuNetwork : public framework::LayerStack {
 public:
  // params: the initial values, as host_training::init_parameters(spec, seed) makes them.
  // Every buffer is allocated here, for batches of up to max_batch examples. The layers are made by
  // `layers` (null: this lesson's, gpu_layers(conv)); a kind nobody registered makes the constructor
  // throw course::Error naming it. This lesson's conv layers share one workspace, sized here.
  GpuNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
             int max_batch, ConvAlgorithm conv, const framework::DeviceLayerMakers* layers = nullptr,
             const LossMaker& extra_loss = nullptr);

  ConvAlgorithm conv_algorithm() const { return conv_; }  // as requested (may be automatic)
  // What each conv layer runs, e.g. "im2col" or "auto (conv1 direct, conv2 im2col)".
  std::string conv_summary() const;
  framework::DeviceLoss& loss() { return loss_; }
  std::string loss_name() const override { return SoftmaxCrossEntropy::name(); }

 private:
  ConvAlgorithm conv_;
  course::DeviceBuffer<float> workspace_;  // shared by the conv layers
  framework::DeviceLoss& loss_;  // the stack's loss: this lesson's, or the LossMaker's
};

}  // namespace mnist_gpu
