#pragma once
// Lesson 15 (given): batch norm, global average pooling and res blocks as layers of lesson 08's GPU
// network, on your kernels of 15.2 and 15.5; every other layer on lesson 09's kernels as lesson 12
// builds them. deeper_gpu_layers registers them for GpuNetwork (and so for the framework's trainer). Every
// layer here launches on the stream the network gives it, so whole training steps can be captured
// into CUDA graphs (lesson 09), except a max-pool whose input can be negative (lesson 08's).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "beyond_gpu_layers.hpp"  // lesson 12's OtherKernels
#include "course/device_buffer.hpp"
#include "deeper_cnns.hpp"
#include "fast_gpu_layers.hpp"    // lesson 12's layers on lesson 09's kernels
#include "tensor_core_convs.hpp"  // lesson 10's Tensor Core convolutions
#include "host_training.hpp"
#include "network.hpp"          // lesson 08's GpuNetwork and Layer
#include "synced_batch_norm.hpp"

namespace deeper_cnns {

class ReluLayer;

// Batch norm: the batch's statistics while training (your 15.6: a channel across the whole GPU), the
// running ones in evaluation (set_training(false); your 15.2's evaluation pass). The running
// statistics start at mean 0, variance 1.
class BatchNormLayer : public mnist_gpu::Layer {
 public:
  BatchNormLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView gamma,
                 mnist_gpu::ParamView beta);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override;
  std::string kernels() const override {
    if (synced_) return "batch norm across the GPUs (15.6, synchronized)";
    return conv_statistics_ ? "batch norm across the GPU (15.6), its statistics from the conv before it (its blocks)"
                            : "batch norm across the GPU (15.6)";
  }
  size_t own_bytes() const override { return (stats_.size() + workspace_.size()) * sizeof(float); }
  bool runs_on_stream() const override { return true; }
  // The running mean and variance (what a profile puts back).
  std::vector<std::pair<float*, size_t>> buffers() override {
    return {{stats_.data() + 2 * plan_.out_c, 2 * size_t(plan_.out_c)}};
  }
  const float* running_mean() const { return stats_.data() + 2 * plan_.out_c; }  // device, [channels]
  const float* running_var() const { return stats_.data() + 3 * plan_.out_c; }
  // The ReLU right after it: the norm's passes do its work (15.2's fused ReLU), y going straight to
  // the ReLU's output and the ReLU's dy coming straight back here.
  // Its own output buffer is then never written: it is given back (output() is null from then on).
  void fuse(ReluLayer* relu) { relu_ = relu, out_ = course::DeviceBuffer<float>(); }
  void take_relu_gradient(const float* dy) { relu_dy_ = dy; }
  // A res block's last layer: its next training pass adds `skip` (the block's shortcut) before the
  // ReLU where `relu`, and writes to `out` (the block's output) instead of its own buffer: the block's
  // add rides in the norm's pass. False (nothing set) where it cannot: in evaluation, or with a ReLU
  // fused after the norm itself.
  bool end_block(const float* skip, float* out, bool relu);
  // From now on the training passes take their statistics over every GPU of `rank`'s communicator
  // (synced_batch_norm.hpp); evaluation stays on the running statistics.
  void synchronize_over(const framework::Rank& rank);
  bool synchronized() const { return synced_ != nullptr; }
  // The conv right before it writes this norm's statistics in its forward pass while training: the
  // count, mean and squares of each of its blocks (10.6's or 09.10's), from their registers,
  // `entries_per_image` a channel for each image; point_to(at) has it write them at `at` (nullptr:
  // none). The norm's training pass is then 15.6's second kernel alone, merging those entries instead
  // of its slices'. Not with synchronize_over (its entries are the slices').
  void take_statistics_from(std::function<void(float*)> point_to, int entries_per_image);

 private:
  BatchNormShape shape(int batch) const { return {batch, plan_.out_c, plan_.out_h, plan_.out_w}; }
  mnist_gpu::ParamView gamma_, beta_;
  bool training_ = true;
  ReluLayer* relu_ = nullptr;
  const float* relu_dy_ = nullptr;
  const float* skip_ = nullptr;  // end_block's, for the next training pass only
  float* block_out_ = nullptr;
  bool block_relu_ = false;
  course::DeviceBuffer<float> stats_;      // saved mean, saved inv_std, running mean, running var
  course::DeviceBuffer<float> workspace_;  // 15.6's slices' statistics
  std::unique_ptr<SyncedStatistics> synced_;  // set: the statistics over several GPUs
  std::function<void(float*)> conv_statistics_;  // set: where the conv before it writes the statistics
  int conv_entries_per_image_ = 0;
  int conv_entries(int batch) const { return conv_entries_per_image_ * batch; }  // a channel's (0: none)
};

// A ReLU on a stream. Backward from its own output: dx = dy where y > 0. After batch norm or a res block
// (fed), that layer writes y itself (batch norm also takes dy and masks it), so the ReLU's forward
// pass does nothing.
class ReluLayer : public mnist_gpu::Layer {
 public:
  ReluLayer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override {
    return fed_ ? (masked_by_next_ ? "fused into the layers before and after it" : "fused into the layer before it")
                : (masked_by_next_ ? "ReLU, its backward in the block after it" : "ReLU");
  }
  bool runs_on_stream() const override { return true; }
  // Fed by batch norm, its dy goes straight to the norm: its input-gradient buffer is given back
  // (input_grad() is null from then on).
  void fed_by(BatchNormLayer* norm) { fed_ = true, norm_ = norm, din_ = course::DeviceBuffer<float>(); }
  void fed_by_block() { fed_ = true; }
  // A res block right after it masks its own input gradient with this layer's output (y > 0 where
  // x > 0) and writes it to input_grad(): this layer's backward pass then does nothing.
  void masked_by_next_block() { masked_by_next_ = true; }

 private:
  bool fed_ = false;
  bool masked_by_next_ = false;
  BatchNormLayer* norm_ = nullptr;
};

// Global average pooling (your 15.5): C x H x W -> C.
class GlobalAvgPoolLayer : public mnist_gpu::Layer {
 public:
  GlobalAvgPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return "global average pooling (15.5)"; }
  bool runs_on_stream() const override { return true; }
};

// A strided convolution on lesson 09's implicit GEMMs, whose input gradient they run at stride 1
// only. The gradient of a stride-s convolution is the stride-1 one of dy spread out: dy's values
// placed s apart, zeros between (spread_by_stride_gpu), so dx = conv_backward_data at stride 1 of
// the spread dy. It does s*s times the work of a kernel written for the stride.
class StridedConvLayer : public beyond_mnist::ImplicitConvLayer {
 public:
  // products: the forward pass's and weight gradient's (null: lesson 09's FP32). dx_kernels: lesson
  // 10's Tensor Cores for the stride-1 input gradient where they run it, else (or null) lesson 09's FP32.
  StridedConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                   mnist_gpu::ParamView bias, const fast_training::GemmProducts* products = nullptr,
                   std::shared_ptr<const tensor_cores::TensorCoreConvs> dx_kernels = nullptr);
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override {
    return "implicit GEMM (lesson 09), dx at stride 1 of dy spread out" +
           (dx_kernels_ ? " on " + dx_kernels_->name() : std::string());
  }
  size_t own_bytes() const override {
    return ImplicitConvLayer::own_bytes() + (spread_.size() + data_workspace_.size()) * sizeof(float) +
           dx_weights_.size();
  }

 private:
  // The same convolution at stride 1.
  host_layers::ConvShape unit_stride(int batch) const { host_layers::ConvShape s = shape(batch); s.stride = 1; return s; }
  std::shared_ptr<const tensor_cores::TensorCoreConvs> dx_kernels_;  // null: lesson 09's FP32
  course::DeviceBuffer<float> spread_, data_workspace_;
  course::DeviceBuffer<unsigned char> dx_weights_;  // dx_kernels_' own copy of the weights
};

// A res block: its body's layers and its shortcut's (none: the input itself), each list chained as
// GpuNetwork chains its layers. A pass observer (--profile) hears the block as one layer: its layers
// are not told of it. The shortcut runs first: while training, a body that ends in a batch norm adds
// it in that norm's pass (BatchNormLayer::end_block), and no add of the block's own follows.
//   forward:  y = body(x) + shortcut(x)
//   backward: dx = (dx through the body) + (dx through the shortcut, or dy itself)
class ResidualLayer : public mnist_gpu::Layer, public beyond_mnist::BranchingLayer {
 public:
  using Layers = std::vector<std::unique_ptr<mnist_gpu::Layer>>;
  // input_grad false: nobody reads dx (the network's first layer), it is not written.
  ResidualLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, Layers body, Layers shortcut,
                bool input_grad);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override;
  void set_stream(cudaStream_t stream) override;
  void use_branch(fast_training::Branch* branch) override;
  std::vector<std::pair<float*, size_t>> buffers() override;  // its layers', body then shortcut
  std::string kernels() const override;
  size_t own_bytes() const override;
  bool runs_on_stream() const override;
  const Layers& body() const { return body_; }
  const Layers& shortcut() const { return shortcut_; }
  // The ReLU right after the block: the add writes max(0, body + shortcut) straight to its output.
  // The add writes the ReLU's output: the block's own output buffer is given back (output() null).
  void fuse(ReluLayer* relu) { relu_ = relu, out_ = course::DeviceBuffer<float>(); }
  // The ReLU right before the block (its output is the block's input x): the backward add writes
  // (body + shortcut) where x > 0, else 0, straight to that ReLU's input gradient, and the ReLU's own
  // pass goes. The block's input-gradient buffer is given back (input_grad() null from then on).
  void mask_input_gradient(ReluLayer* before);

 private:
  Layers body_, shortcut_;
  bool input_grad_;
  ReluLayer* relu_ = nullptr;
  ReluLayer* before_ = nullptr;
};

// dy [planes x oh x ow] spread to [planes x height x width]: spread[p][i*stride][j*stride] = dy[p][i][j],
// every other value 0 (given). height >= (oh - 1) * stride + 1, width likewise.
void spread_by_stride_gpu(const float* dy, float* spread, int planes, int oh, int ow, int height, int width,
                          int stride, cudaStream_t stream);

// This lesson's GPU layers (framework/layer_makers.hpp) on lesson 12's: batch norm, global average
// pooling, res blocks (a composite layer: its body and shortcut made as lists of their own) and
// ReLUs here; conv, dense and max-pool of non-negative inputs on lesson 09's kernels as lesson 12
// makes them (strided convolutions as StridedConvLayer; a max-pool whose input can be negative on
// lesson 08's MaxPoolLayer, on the default stream); sigmoid, tanh and dropout (drawing from `seed`)
// as lesson 12's. Then lesson 12's passes and three of this lesson's, in this order:
// fuse_relu_into_norm_or_block, mask_gradient_in_block, statistics_in_conv.
// synced (not null): every batch norm takes its statistics over the GPUs of that rank's communicator.
// other: lesson 10's Tensor Core convolutions for every convolution they run (the stride-1 ones), and
// other products for the implicit GEMMs and dense layers (lesson 12's OtherKernels; thin_first unused).
std::shared_ptr<const framework::DeviceLayerMakers> deeper_gpu_layers(uint64_t seed,
                                                                      const framework::Rank* synced = nullptr,
                                                                      const beyond_mnist::OtherKernels& other = {});
// The passes, each over the network's lists and every block's body and shortcut:
// a ReLU right after a batch norm or a block runs inside it (BatchNormLayer::fuse, ResidualLayer::fuse);
constexpr const char* kFuseReluIntoNormOrBlock = "fuse each ReLU into the batch norm or block before it";
void fuse_relu_into_norm_or_block(framework::DeviceLayerMakers::Layers& layers);
// a block right after a ReLU (not fused into a norm) masks its input gradient with that ReLU's output
// (ResidualLayer::mask_input_gradient);
constexpr const char* kMaskGradientInBlock = "mask a ReLU's gradient in the block after it";
void mask_gradient_in_block(framework::DeviceLayerMakers::Layers& layers);
// a batch norm of one GPU's statistics takes them from the conv right before it, where that conv's
// kernels write them (lesson 10's, the conv given its own copy of them; or lesson 09's tiled FP32
// ones).
constexpr const char* kStatisticsInConv = "batch norm's statistics from the conv before it";
void statistics_in_conv(framework::DeviceLayerMakers::Layers& layers);
// "" when every layer deeper_gpu_layers makes runs on a stream of its own (whole steps can be
// captured into CUDA graphs), else which one does not: "layer 3 'pool2' (...)".
std::string stream_problem(const host_training::ModelSpec& spec);

}  // namespace deeper_cnns
