#pragma once
// Lesson 09, step 09.8: the fast network, lesson 08's GpuNetwork rebuilt from this lesson's pieces.
// It runs models made of blocks conv -> ReLU -> max-pool, then dense layers with a ReLU between
// two of them (model A, the small CNN):
//
//   x -> [conv (09.2's implicit GEMM or 09.10's tiled kernel) -> ReLU + max-pool (09.5)] x blocks -> [dense + ReLU (09.7)] ... -> dense
//     -> softmax-CE forward and backward in one kernel (09.6)
//   backward: dense dW (09.7, given: dense_backward_weight), dense dx with the ReLU mask (09.7), ReLU + max-pool backward through
//   the argmax (09.5: the ReLU's mask rides in it), conv dW (09.4 or 09.11), conv dx (09.3 or 09.10), except
//   for the FIRST conv, whose dx nobody needs: skipped. Pool windows must not overlap (stride == window).
//
// Which kernels run a conv is the network's choice, made once here (conv_forward,
// conv_backward_weight and conv_backward_data below hide it from the passes):
// ConvEngine::implicit_gemm everywhere (09.2-09.4), or ConvEngine::tiled (09.10, 09.11) for every
// conv they run (conv_tiled_problem is "") that has at least kTiledMinChannels input channels:
// with fewer, most of a chunk would be zeros (model A's conv1 has one), so those stay implicit GEMMs.
//
// Parameters live in lesson 08's ParameterStore (the same layout, so lesson 08's one-launch
// optimizer updates them and the same initial values give the same steps), every activation in
// a buffer sized for max_batch: a step allocates nothing. Every launch goes to `stream` (step 09.9
// captures whole training steps from it into a CUDA graph).
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "branch.hpp"
#include "course/device_buffer.hpp"
#include "fast_training.hpp"
#include "host_training.hpp"
#include "framework/device_network.hpp"
#include "framework/parameter_store.hpp"

namespace fast_training {

enum class ConvEngine { implicit_gemm, tiled };
constexpr int kTiledMinChannels = 8;

// Other kernels for the forward pass and the input gradient of some convolutions (Tensor Core
// convolutions, say, plug in here); the weight gradient stays with the network's engine.
class ConvKernels {
 public:
  virtual ~ConvKernels() = default;
  virtual std::string name() const = 0;
  // Whether they run this convolution (its shape at max_batch: they must run every smaller batch).
  virtual bool runs(const host_layers::ConvShape& s) const = 0;
  // Bytes of their own copy of the weights (another layout or format), written by every forward.
  virtual size_t weights_bytes(const host_layers::ConvShape& s) const = 0;
  // y = conv(x, W) + bias, after writing own_weights from W; all on `stream`.
  virtual void forward(const host_layers::ConvShape& s, const float* x, const float* W, const float* bias,
                       void* own_weights, float* y, cudaStream_t stream) const = 0;
  // dx for dy, from W and the own_weights the last forward wrote.
  virtual void backward_data(const host_layers::ConvShape& s, const float* W, const void* own_weights, const float* dy,
                             float* dx, cudaStream_t stream) const = 0;
  // Whether they also compute this conv's weight gradient (else the network's engine does), with how
  // many floats of workspace at this batch; then dW and dbias from x and dy, both overwritten.
  virtual bool runs_weight_gradient(const host_layers::ConvShape&) const { return false; }
  virtual size_t weight_workspace_floats(const host_layers::ConvShape&) const { return 0; }
  virtual void backward_weight(const host_layers::ConvShape&, const float* /*x*/, const float* /*dy*/, float* /*dW*/,
                               float* /*dbias*/, float* /*workspace*/, cudaStream_t) const {}
};

// One of the framework's DeviceNetworks, as lesson 08's GpuNetwork: what trains, evaluates or
// replicates one takes the other.
class FastNetwork : public framework::DeviceNetwork {
 public:
  // Throws course::Error when spec is not of the supported shape or params do not fit it.
  // `kernels` (may be null): other kernels for the forward pass and input gradient of every conv they run.
  // `products`: the implicit-GEMM engine's products the dense layers and the implicit-GEMM convs run
  // (null: fp32_products(), this lesson's; another math plugs in there). The tiled convs (09.10,
  // 09.11) and the short dense products stay FP32.
  FastNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params, int max_batch,
              cudaStream_t stream = nullptr, ConvEngine engine = ConvEngine::implicit_gemm,
              std::shared_ptr<const ConvKernels> kernels = nullptr, const GemmProducts* products = nullptr);

  // ---- step 09.8 -------------------------------------------------------------------------------
  // x: batch x C x H x W on the device; logits() holds the result.
  void forward(const float* x, int batch);
  // forward, the loss on `labels` (device ints; row_loss() then holds each example's loss), and
  // every gradient in parameters(), fresh (overwritten).
  void forward_backward(const float* x, const int* labels, int batch) override;

  // ---- given -----------------------------------------------------------------------------------
  // forward, then the loss on `labels` into row_loss() (for evaluation).
  void forward_and_loss(const float* x, const int* labels, int batch) override;
  framework::ParameterStore& parameters() override { return params_; }
  const float* logits() override { return dense_.back().out_buf.data(); }
  const float* row_loss() override { return row_loss_.data(); }
  int classes() const override { return spec_.classes; }
  int max_batch() const override { return max_batch_; }
  size_t input_size() const override { return input_size_; }  // values per example
  cudaStream_t stream() const override { return stream_; }
  const GemmProducts& products() const { return *products_; }
  int conv_blocks() const { return int(conv_.size()); }
  int tiled_convs() const;  // how many of them run 09.10's kernel
  int other_convs() const;  // how many run the ConvKernels given to the constructor (forward and dx)
  int other_weight_gradients() const;  // ... and of those, how many their weight gradient too

  // Listening to the backward pass (framework/device_network.hpp): each layer reports right after
  // the launches that write its dW and dbias went to stream(), in backward order, once per call.
  void set_gradient_hook(GradientHook hook) override;

  // Step 09.13: the first conv block's conv, ReLU and pool by the thin kernels, where they run it
  // (thin_conv_problem): the forward writes only the pooled output and its argmax, the backward
  // reads d_pooled and the argmax straight into dW and dbias. Off (the default): 09.5 and the
  // block's conv kernels, as before. Any time between steps.
  void use_thin_first_layer(bool on);
  bool thin_first_layer() const;  // whether the first block runs on the thin kernels now

  // Step 09.12: with a branch (its main stream must be stream()), every layer's weight gradient but
  // the first layer's runs on the branch's side stream, forked right after its dy is written,
  // beside the input gradients on stream() (each side with its own workspace). The first layer's
  // is the backward's last work: it stays on stream(), where nothing else is left to run. forward_backward then returns with the weight
  // gradients possibly still being written: branch->join() before anything on stream() reads them
  // (the update). Null: everything on stream(), as before. Not with a gradient hook (its
  // events mark points of stream() only): setting both throws course::Error.
  void use_branch(Branch* branch);

  struct ConvBlock {
    host_layers::ConvShape conv;      // at max_batch; .batch is set per call
    host_layers::PoolShape pool;
    size_t weight = 0;                // index of the weight in the framework::ParameterStore; its bias is weight + 1
    course::DeviceBuffer<float> conv_out, pooled, d_conv_out, d_pooled;  // d_pooled: dL/d(pooled)
    course::DeviceBuffer<int> argmax;
    bool tiled = false;                        // forward and dx by 09.10's kernel, dW by 09.11's
    course::DeviceBuffer<float> tiled_weights;  // the weights in its order (written by conv_forward)
    bool other = false;                         // forward and dx by the ConvKernels
    bool other_dw = false;                      // dW and dbias by them too (else as above)
    course::DeviceBuffer<unsigned char> other_weights;  // their own copy of the weights
    bool thin_ok = false;  // the first block, and the thin kernels run it (09.13)
    host_layers::ConvShape conv_at(int batch) const { host_layers::ConvShape s = conv; s.batch = batch; return s; }
    host_layers::PoolShape pool_at(int batch) const { host_layers::PoolShape p = pool; p.batch = batch; return p; }
  };
  struct DenseStage {
    int in = 0, out = 0;
    bool relu = false;                // a ReLU follows (every dense layer but the last)
    size_t weight = 0;
    course::DeviceBuffer<float> out_buf, d_in;   // its output; dL/d(its input)
  };

 private:
  void check_batch(int batch, const char* what) const;
  // Given: block b's conv forward (bias included) from `in` into b.conv_out; its dW and dbias
  // from `in` and b.d_conv_out; its dx from b.d_conv_out into dx; each by the block's kernels.
  // conv_backward_data reads the tiled weights the last conv_forward wrote: call it after a
  // forward with the same weights (as a step does).
  void conv_forward(ConvBlock& b, const float* in, int batch);
  void conv_backward_weight(ConvBlock& b, const float* in, int batch);
  void conv_backward_data(ConvBlock& b, float* dx, int batch);
  // Given: block b's ReLU and max-pool by 09.5 (forward: b.conv_out -> b.pooled and b.argmax;
  // backward: b.d_pooled through b.argmax -> b.d_conv_out). With the thin kernels (09.13) running
  // the block, its conv_forward already wrote pooled and argmax, and its conv_backward_weight reads
  // d_pooled itself: these then have nothing left to do.
  void pool_forward(ConvBlock& b, int batch);
  void pool_backward(ConvBlock& b, int batch);
  bool runs_thin(const ConvBlock& b) const { return thin_first_ && b.thin_ok; }
  // Given: dense stage d's passes by 09.7's kernels, in the network's products: its forward from `in`
  // into d.out_buf (ReLU when d.relu); its dW and dbias from `in` and dy = dL/d(its output); its dx
  // from dy, masked by `mask` (null: no ReLU before), into dx.
  void dense_forward(DenseStage& d, const float* in, int batch);
  void dense_backward_weight(DenseStage& d, const float* in, const float* dy, int batch);
  void dense_backward_data(DenseStage& d, const float* dy, const float* mask, float* dx, int batch);
  void gradients_ready(size_t weight) const {
    if (gradient_hook_) gradient_hook_(weight);
  }
  host_training::ModelSpec spec_;
  int max_batch_;
  size_t input_size_ = 0;
  cudaStream_t stream_;
  framework::ParameterStore params_;
  const GemmProducts* products_;
  std::vector<ConvBlock> conv_;
  std::vector<DenseStage> dense_;
  course::DeviceBuffer<float> conv_workspace_, dense_workspace_, row_loss_, dlogits_;
  // Where each weight gradient goes (09.12): one for the conv workspace's kernels, one for the dense.
  WeightGradientAside conv_aside_, dense_aside_;
  bool thin_first_ = false;  // 09.13: the first block on the thin kernels
  GradientHook gradient_hook_;
  std::shared_ptr<const ConvKernels> kernels_;
};

}  // namespace fast_training
