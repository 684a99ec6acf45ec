#pragma once
// Lesson 12: lesson 09's faster kernels as layers of lesson 08's GPU network, so that any network a
// layer list describes trains on them, and on a stream of its own, so that whole training steps can
// be captured into CUDA graphs (lesson 09's 09.9). Given: the classes, their checks and buffers
// (fast_gpu_layers.cpp); yours: their forward and backward passes (exercises/fast_layer_passes.cpp,
// step 12.5), on lesson 09's solutions' kernels. Which layer runs where is your 12.4.
//
//   conv    09.10/09.11's tiled kernels (stride 1, 3x3 or 5x5, at least 8 input channels, outputs
//           of 4x4 or more: conv_tiled_problem), else 09.2-09.4's implicit GEMM; a convolution whose
//           window covers its whole input (LeNet-5's third, 16x5x5 -> 120x1x1) IS a dense layer
//           (the same weights, the same sums), so it runs on 09.7's fused products
//   dense   09.7's fused products
//   relu    09.5's ReLU folded into a max-pool, with a 1x1 window: max(0, x) and its mask; a relu
//           right before such a pool is folded into the pool's kernel itself (FoldedReluLayer)
//   pool    09.5's kernel when the input cannot be negative (after relu or sigmoid: the ReLU it
//           folds in then changes nothing) and the windows do not overlap
//   loss    09.6's softmax-cross-entropy, forward and backward in one kernel
// The first layer's input gradient is not computed: nobody reads it.
// With lesson 09's branch (09.12, use_branch below) the conv and dense layers put their weight
// gradient on the branch's side stream, beside the input gradients, each with its own workspace.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "branch.hpp"
#include "course/device_buffer.hpp"
#include "fast_network.hpp"  // ConvKernels
#include "fast_training.hpp"  // GemmProducts
#include "host_layers.hpp"
#include "host_training.hpp"
#include "layer.hpp"
#include "softmax_cross_entropy.hpp"

namespace mnist_gpu {
class GpuNetwork;
}  // namespace mnist_gpu

namespace beyond_mnist {

using fast_training::WeightGradientAside;  // lesson 09's (09.12)

// A layer whose weight gradient can go to a branch's side stream.
class BranchingLayer {
 public:
  virtual ~BranchingLayer() = default;
  virtual void use_branch(fast_training::Branch* branch) = 0;
};

// Gives `branch` (nullptr: none) to every layer of `net` that can use it; returns how many. With a
// branch, forward_backward returns with weight gradients possibly still being written on the side:
// branch->join() before anything on the network's stream reads them (the update). Set it after
// net.set_stream, to the branch of that stream.
int use_branch(mnist_gpu::GpuNetwork& net, fast_training::Branch* branch);

class FastConvLayer : public mnist_gpu::Layer, public BranchingLayer {
 public:
  // Throws course::Error when the tiled kernels do not run the shape (runs_tiled_conv is false).
  FastConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                mnist_gpu::ParamView bias, bool input_grad);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return "tiled (lesson 09)"; }
  size_t own_bytes() const override { return (tiled_weights_.size() + workspace_.size()) * sizeof(float); }
  bool runs_on_stream() const override { return true; }
  void use_branch(fast_training::Branch* branch) override { aside_.use(branch, stream_, workspace_.size()); }
  // From now on the forward pass also writes its outputs' statistics there (09.10's `stats`;
  // nullptr: none): statistics_entries_per_image() entries a channel for each image.
  void write_statistics_to(float* stats) { statistics_ = stats; }
  int statistics_entries_per_image() const { return fast_training::conv_tiled_statistics_entries(shape(1)); }

 private:
  host_layers::ConvShape shape(int batch) const;
  mnist_gpu::ParamView weight_, bias_;
  bool input_grad_;
  course::DeviceBuffer<float> tiled_weights_, workspace_;
  WeightGradientAside aside_;
  float* statistics_ = nullptr;
};

// A layer's kernels as its line says them: `what`, and the products' name unless they are lesson 09's.
std::string kernels_text(const std::string& what, const fast_training::GemmProducts& products);

// A convolution as 09.2-09.4's implicit GEMMs, in `products` (null: lesson 09's FP32 ones).
// Its input gradient needs stride 1.
class ImplicitConvLayer : public mnist_gpu::Layer, public BranchingLayer {
 public:
  ImplicitConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                    mnist_gpu::ParamView bias, bool input_grad,
                    const fast_training::GemmProducts* products = nullptr);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override {
    return kernels_text("implicit GEMM (lesson 09)", products_);
  }
  size_t own_bytes() const override { return workspace_.size() * sizeof(float); }
  bool runs_on_stream() const override { return true; }
  void use_branch(fast_training::Branch* branch) override { aside_.use(branch, stream_, workspace_.size()); }

 protected:  // ThinConvLayer's too
  host_layers::ConvShape shape(int batch) const;
  mnist_gpu::ParamView weight_, bias_;

 private:
  bool input_grad_;
  const fast_training::GemmProducts& products_;
  course::DeviceBuffer<float> workspace_;
  WeightGradientAside aside_;
};

// A convolution on other kernels (lesson 10's Tensor Core convolutions): their forward pass and input
// gradient, and their weight gradient where they run it, else lesson 09's (tiled where it runs, else
// the implicit GEMM in `products`).
class OtherConvLayer : public mnist_gpu::Layer, public BranchingLayer {
 public:
  // Throws course::Error when `kernels` do not run the shape at max_batch.
  OtherConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                 mnist_gpu::ParamView bias, bool input_grad, std::shared_ptr<const fast_training::ConvKernels> kernels,
                 const fast_training::GemmProducts* products);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return kernels_->name(); }
  // The kernels it runs (a later lesson asks its own kinds of kernels for more).
  const std::shared_ptr<const fast_training::ConvKernels>& conv_kernels() const { return kernels_; }
  // From now on, `kernels` instead: kernels of the same kind, configured alike (a copy of these, so
  // that what a later lesson sets on them is this layer's alone); the buffers sized for these stay.
  // Throws course::Error for kernels of another kind or size.
  void use_kernels(std::shared_ptr<const fast_training::ConvKernels> kernels);
  size_t own_bytes() const override { return own_weights_.size() + workspace_.size() * sizeof(float); }
  bool runs_on_stream() const override { return true; }
  void use_branch(fast_training::Branch* branch) override { aside_.use(branch, stream_, workspace_.size()); }

 protected:  // ThinConvLayer's too
  host_layers::ConvShape shape(int batch) const;
  mnist_gpu::ParamView weight_, bias_;

 private:
  bool input_grad_;
  std::shared_ptr<const fast_training::ConvKernels> kernels_;
  const fast_training::GemmProducts& products_;
  bool their_dw_, tiled_dw_;
  course::DeviceBuffer<unsigned char> own_weights_;
  course::DeviceBuffer<float> workspace_;
  WeightGradientAside aside_;
};

// A dense layer, or a convolution whose window covers its whole input (conv_is_dense), on 09.7's
// fused products in `products` (null: lesson 09's FP32 ones): x [batch x in_size], W [out_c x in_size]
// in both cases.
class FastDenseLayer : public mnist_gpu::Layer, public BranchingLayer {
 public:
  FastDenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                 mnist_gpu::ParamView bias, bool input_grad,
                 const fast_training::GemmProducts* products = nullptr);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override {
    return kernels_text("fused dense products (lesson 09)", products_);
  }
  size_t own_bytes() const override { return workspace_.size() * sizeof(float); }
  bool runs_on_stream() const override { return true; }
  void use_branch(fast_training::Branch* branch) override { aside_.use(branch, stream_, workspace_.size()); }

 private:
  mnist_gpu::ParamView weight_, bias_;
  bool input_grad_;
  const fast_training::GemmProducts& products_;
  course::DeviceBuffer<float> workspace_;
  WeightGradientAside aside_;
};

class FoldedReluLayer;

// What a thin first conv (09.13) and the pool after it share: whether the conv runs them fused now
// (training), and the pool's gradient, which the pool's backward leaves for the conv's.
struct ThinBlock {
  bool training = true;
  const float* d_pooled = nullptr;
  class ReluPoolLayer* pool = nullptr;
  bool fused() const { return training && pool; }
};

// relu (as a 1x1 max-pool with the ReLU folded in) or a max-pool of non-negative inputs, on 09.5's
// kernels; the backward pass reads only the argmax the forward pass wrote. A pool given the relu
// before it (`folded`) reads that relu's input and writes that relu's input gradient itself.
class ReluPoolLayer : public mnist_gpu::Layer {
 public:
  ReluPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                FoldedReluLayer* folded = nullptr);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override;
  size_t own_bytes() const override { return argmax_.size() * sizeof(int); }
  bool runs_on_stream() const override { return true; }
  // A thin first conv before it (09.13): while `thin` fuses them, this pool's passes are the conv's.
  void share_thin_block(std::shared_ptr<ThinBlock> thin) { thin_ = std::move(thin); }
  // The relu right before it, folded in: this pool reads its input and writes its input gradient.
  void fold(FoldedReluLayer* relu) { folded_ = relu; }
  int* argmax() { return argmax_.data(); }
  host_layers::PoolShape shape(int batch) const;

 private:
  std::shared_ptr<ThinBlock> thin_;
  course::DeviceBuffer<int> argmax_;
  FoldedReluLayer* folded_;
};

// A ReLU right before a max-pool that ReluPoolLayer runs: 09.5's kernel does both in one pass. While
// training this layer only remembers where its input is (forward) and leaves its input gradient to
// the pool (backward): its output() is not written. In evaluation it writes its output as a relu
// does (the feature maps' picture reads it).
class FoldedReluLayer : public ReluPoolLayer {
 public:
  FoldedReluLayer(std::string name, const host_training::LayerPlan& plan, int max_batch)
      : ReluPoolLayer(std::move(name), plan, max_batch) {}
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override { training_ = training; }
  std::string kernels() const override { return "folded into the next max-pool (lesson 09)"; }
  const float* input() const { return input_; }  // the last forward's x

 private:
  bool training_ = true;
  const float* input_ = nullptr;
};

// The loss on 09.6's fused kernel: forward writes row_loss() and logits_grad() at once (probs() is
// not written), backward has nothing left to do.
class FusedSoftmaxCrossEntropy : public mnist_gpu::SoftmaxCrossEntropy {
 public:
  using SoftmaxCrossEntropy::SoftmaxCrossEntropy;
  void forward(const float* logits, const int* labels, int batch) override;
  void backward(const int* labels, int batch) override;
  bool runs_on_stream() const override { return true; }
};

// The first conv of a network on lesson 09's thin kernels (09.13) while training: its conv, the
// folded relu after it and the pool after that in one kernel, writing the pool's output and argmax;
// backward, dW and dbias straight from the pool's gradient and argmax. In evaluation (and before the
// pool is attached) it is the conv layer it derives from: ImplicitConvLayer or OtherConvLayer.
template <class Conv>
class ThinConvLayer : public Conv {
 public:
  template <class... Args>
  explicit ThinConvLayer(std::shared_ptr<ThinBlock> thin, Args&&... args)
      : Conv(std::forward<Args>(args)...), thin_(std::move(thin)) {
    allocate_workspace();
  }
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override {
    Conv::set_training(training);
    thin_->training = training;
  }
  std::string kernels() const override {
    return "conv, ReLU and max-pool in one kernel while training (lesson 09's 09.13); else " + Conv::kernels();
  }
  const std::shared_ptr<ThinBlock>& thin_block() const { return thin_; }
  size_t own_bytes() const override { return Conv::own_bytes() + thin_workspace_.size() * sizeof(float); }

 private:
  void allocate_workspace();  // the thin weight gradient's, for every batch up to max_batch
  std::shared_ptr<ThinBlock> thin_;
  course::DeviceBuffer<float> thin_workspace_;
};

// Whether lesson 09's tiled kernels run this convolution.
bool runs_tiled_conv(const host_training::LayerPlan& plan);
// Whether this convolution's window covers its whole (unpadded) input: one output pixel, a dense layer.
bool conv_is_dense(const host_training::LayerPlan& plan);

}  // namespace beyond_mnist
