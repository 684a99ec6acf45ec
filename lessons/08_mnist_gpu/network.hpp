#pragma once
// GpuNetwork: lesson 02's ModelSpec built from the GPU layers (conv_layer.hpp, relu_layer.hpp,
// maxpool_layer.hpp, dense_layer.hpp), its parameters in one ParameterStore (the framework's), the loss
// (softmax_cross_entropy.hpp) at the end. Its forward and forward_backward (step 08.8,
// exercises/network_passes.cpp) chain the layers exactly as lesson 02's HostNetwork does on the
// CPU, so the same weights and batches give the same losses and gradients (up to float rounding):
// the test of step 08.8 checks that.
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
#include "framework/layered_network.hpp"
#include "host_training.hpp"
#include "layer.hpp"
#include "maxpool_layer.hpp"
#include "framework/parameter_store.hpp"
#include "relu_layer.hpp"
#include "softmax_cross_entropy.hpp"

namespace mnist_gpu {

// Layers plugged in (other kinds, or faster conv and dense layers):
// builds the layer from its name ("sigmoid1"), its index in the network (0 = the first layer),
// plan, max_batch and, for conv and dense, its weight and bias in the ParameterStore; returns
// nullptr to leave the layer to this lesson.
using LayerMaker = std::function<std::unique_ptr<Layer>(const std::string& name, size_t index,
                                                        const host_training::LayerPlan& plan, int max_batch,
                                                        ParamView weight, ParamView bias)>;

// A loss plugged in (softmax-cross-entropy on a stream, or a fused kernel):
// builds it for `classes` and max_batch; nullptr leaves this lesson's.
using LossMaker = std::function<std::unique_ptr<SoftmaxCrossEntropy>(int classes, int max_batch)>;

// One of the framework's DeviceNetworks, and a LayeredNetwork (a list of layers, whose pictures and
// profile the framework draws): the trainer and the evaluation take it as one, and so take any other
// network that is one.
class GpuNetwork : public framework::LayeredNetwork {
 public:
  // params: the initial values, as host_training::init_parameters(spec, seed) makes them.
  // Every buffer is allocated here, for batches of up to max_batch examples. `extra_layers` is asked
  // first for every layer; what it leaves (nullptr) this lesson builds, and a kind other than conv,
  // relu, maxpool and dense that nobody builds makes the constructor throw course::Error naming it.
  GpuNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
             int max_batch, ConvAlgorithm conv, const LayerMaker& extra_layers = nullptr,
             const LossMaker& extra_loss = nullptr);

  // ---- step 08.8 -------------------------------------------------------------------------------
  // x: batch x C x H x W on the device. Runs every layer forward; logits() then holds the result.
  void forward(const float* x, int batch) override;
  // forward, the loss on `labels` (device ints), then every layer backward: afterwards
  // loss().row_loss() holds the batch's losses and every gradient in parameters() is fresh.
  void forward_backward(const float* x, const int* labels, int batch) override;

  // ---- given -----------------------------------------------------------------------------------
  const host_training::ModelSpec& spec() const override { return spec_; }
  size_t layer_count() const override { return layers_.size(); }
  const std::string& layer_name(size_t i) const override { return layers_[i]->name(); }
  const host_training::LayerPlan& layer_plan(size_t i) const override { return layers_[i]->plan(); }
  const float* layer_output(size_t i) const override { return layers_[i]->output(); }
  std::string loss_name() const override { return SoftmaxCrossEntropy::name(); }
  int max_batch() const override { return max_batch_; }
  int classes() const override { return spec_.classes; }
  size_t input_size() const override;  // C*H*W values per example
  void forward_and_loss(const float* x, const int* labels, int batch) override;  // forward, then the loss
  ConvAlgorithm conv_algorithm() const { return conv_; }  // as requested (may be automatic)
  // What each conv layer runs, e.g. "im2col" or "auto (conv1 direct, conv2 im2col)".
  std::string conv_summary() const;
  framework::ParameterStore& parameters() override { return params_; }
  const framework::ParameterStore& parameters() const { return params_; }
  std::vector<std::unique_ptr<Layer>>& layers() { return layers_; }
  SoftmaxCrossEntropy& loss() { return loss_; }
  const float* logits() override { return layers_.back()->output(); }
  const float* row_loss() override { return loss_.row_loss(); }
  // Tells `observer` when each pass of every layer and of the loss starts (nullptr: nobody).
  void set_observer(PassObserver* observer) override;
  // Training (true, the start) or evaluation: tells every layer (dropout drops only while training).
  void set_training(bool training) override;
  // Whether every layer and the loss launch on the stream set_stream gives them.
  bool runs_on_stream() const;
  // Sends every pass of every layer and of the loss to `stream`; throws course::Error naming the
  // first layer that cannot (runs_on_stream() false: it would launch on the default stream).
  void set_stream(cudaStream_t stream);
  cudaStream_t stream() const override { return stream_; }
  // This network has no gradient hook: null is accepted, a hook throws course::Error.
  void set_gradient_hook(GradientHook hook) override;
  // Device memory held by the network's buffers (activations, gradients, workspace, parameters).
  size_t device_bytes() const { return device_bytes_; }

 private:
  host_training::ModelSpec spec_;
  int max_batch_;
  ConvAlgorithm conv_;
  framework::ParameterStore params_;
  course::DeviceBuffer<float> workspace_;  // shared by the conv layers
  std::vector<std::unique_ptr<Layer>> layers_;
  std::unique_ptr<SoftmaxCrossEntropy> own_loss_;
  SoftmaxCrossEntropy& loss_;  // *own_loss_: this lesson's, or the LossMaker's
  size_t device_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace mnist_gpu
