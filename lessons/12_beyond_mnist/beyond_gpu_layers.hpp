#pragma once
// Lesson 12 (given): sigmoid, tanh and dropout as layers of lesson 08's GPU network, on your
// kernels of 12.1 and 12.2. beyond_gpu_layers registers them beside lesson 08's layers, for
// GpuNetwork (and so for lesson 08's kit and the framework's trainer).
#include <cstdint>
#include <memory>
#include <string>

#include "course/device_buffer.hpp"
#include "fast_network.hpp"
#include "host_training.hpp"
#include "layer.hpp"
#include "layer_kernels.hpp"  // GpuLayers, your choose_kernels (12.4)
#include "network.hpp"

namespace beyond_mnist {

// The layer kinds this lesson's networks run, on the CPU and the GPU: the basic ones and sigmoid,
// tanh and dropout (a --model with another kind is refused, naming it).
const framework::LayerKinds& layer_kinds();

// sigmoid or tanh over the whole [batch x C x H x W] tensor. Backward reads the layer's own
// output (kept in output()), not its input.
class ActivationLayer : public mnist_gpu::Layer {
 public:
  ActivationLayer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  bool runs_on_stream() const override { return true; }
};

// Dropout, drawing a new mask for every training pass: the c-th forward pass while training
// (c = 0, 1, ...) uses dropout_key(seed, index, c), and the backward pass after it the same key.
// The key and the count c live in device memory and a one-thread kernel advances them
// (dropout_keys.hpp): a replayed CUDA graph of training steps draws new masks every time.
// While not training (set_training(false): evaluation) it copies its input.
class DropoutLayer : public mnist_gpu::Layer {
 public:
  DropoutLayer(std::string name, size_t index, const host_training::LayerPlan& plan, int max_batch, uint64_t seed);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override { training_ = training; }
  bool runs_on_stream() const override { return true; }
  size_t own_bytes() const override { return 2 * sizeof(uint64_t); }

 private:
  int index_;
  uint64_t seed_;
  bool training_ = true;
  bool dropped_ = false;  // whether the last forward pass dropped (backward then applies its mask)
  course::DeviceBuffer<uint64_t> key_and_passes_;  // [0] the last training pass's key, [1] passes so far
};

// What lesson 09's layers may run besides lesson 09's FP32 kernels (a later lesson's choice):
// other kernels for the convolutions they run (lesson 10's Tensor Core convolutions), and the
// products of the implicit-GEMM convolutions and the dense layers (null: lesson 09's FP32 ones;
// lesson 10's in TF32, say).
struct OtherKernels {
  std::shared_ptr<const fast_training::ConvKernels> conv;
  const fast_training::GemmProducts* products = nullptr;
  // A first conv -> relu -> max-pool that lesson 09's thin kernels run (09.13): conv, ReLU and pool in
  // one kernel while training, dW from the pool's argmax (ThinConvLayer); evaluation as before.
  bool thin_first = false;
};

// Whether the first conv of `spec`, with the relu and max-pool right after it, runs on lesson 09's
// thin kernels (09.13) when OtherKernels::thin_first asks for them.
bool runs_thin_first(const host_training::ModelSpec& spec, int max_batch);

// The layer for a conv or dense `plan` that choose_kernels gave to lesson 09's products (tiled_conv,
// implicit_conv, dense): other.conv's where it runs the conv (a whole-input conv stays a dense
// product), else lesson 09's, with other.products for the implicit GEMMs. nullptr for any other choice.
std::unique_ptr<mnist_gpu::Layer> product_layer(LayerKernels kernels, const std::string& name,
                                                const host_training::LayerPlan& plan, int max_batch,
                                                mnist_gpu::ParamView weight, mnist_gpu::ParamView bias,
                                                bool input_grad, const OtherKernels& other);

// This lesson's GPU layers (framework/layer_makers.hpp), for every kind of layer_kinds(): each layer
// on the kernels your choose_kernels (12.4) gives it: ActivationLayer, DropoutLayer drawing from
// `seed` and, with GpuLayers::lesson09, lesson 09's kernels (or `other`'s convolutions where they run
// them); what it leaves to lesson 08 goes to lesson 08's makers (their convolutions on `conv`).
// Then two passes: fold_relu_into_pool and, with other.thin_first, share_thin_block.
std::shared_ptr<const framework::DeviceLayerMakers> beyond_gpu_layers(
    uint64_t seed, GpuLayers layers, const OtherKernels& other = {},
    mnist_gpu::ConvAlgorithm conv = mnist_gpu::ConvAlgorithm::automatic);
// The pass that hands each FoldedReluLayer to the ReluPoolLayer right after it (which then does the
// relu's work both ways); a folded relu without that pool after it throws course::Error (its output
// would never be written).
constexpr const char* kFoldReluIntoPool = "fold each ReLU into lesson 09's max-pool after it";
void fold_relu_into_pool(framework::DeviceLayerMakers::Layers& layers);
// The pass that lets a thin first conv (09.13) and the max-pool two layers on share one ThinBlock.
constexpr const char* kShareThinBlock = "run a thin first conv, its ReLU and its max-pool in one kernel";
void share_thin_block(framework::DeviceLayerMakers::Layers& layers);
// "" when every layer beyond_gpu_layers(., lesson09) builds for spec (and the loss, fused_loss_maker's)
// launches on a stream of its own, so that whole training steps can be captured into CUDA graphs;
// else which layer cannot, and why: "layer 3 'pool2' (its input can be negative: ...)".
std::string stream_problem(const host_training::ModelSpec& spec);
// The loss on lesson 09's fused kernel (FusedSoftmaxCrossEntropy), for GpuNetwork.
mnist_gpu::LossMaker fused_loss_maker();

}  // namespace beyond_mnist
