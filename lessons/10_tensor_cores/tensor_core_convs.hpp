#pragma once
// Lesson 10 (given): the Tensor Core convolutions (10.5-10.7) as lesson 09's fast network's
// ConvKernels: mixed precision for the convolutions. For each conv the network gives it, the forward
// pass and the input gradient run on the Tensor Cores (10.6 where it runs, else 10.5), and the weight
// gradient too where 10.7 runs; their products in BF16 and sums in FP32. Everything else stays FP32:
// the activations and gradients between layers, the other weight gradients (lesson 09's kernels), the
// dense layers, the master weights and the optimizer's state. The weights are rounded to BF16 again after every update (10.6 keeps
// its BF16 layouts in the network's buffer; 10.5 rounds as it loads).
#include "fast_network.hpp"

namespace tensor_cores {

class TensorCoreConvs : public fast_training::ConvKernels {
 public:
  // one_wave (10.9): split 10.6's and 10.7's grids to fill one wave of the GPU; false: one block an
  // image for 10.6, 2 images a block for 10.7 (what 10.6 and 10.7 launch alone).
  explicit TensorCoreConvs(bool one_wave = true) : one_wave_(one_wave) {}
  std::string name() const override;
  // Every convolution whose input gradient is a convolution too (stride 1, square, pad <= k - 1), on
  // a GPU with BF16 Tensor Cores.
  bool runs(const host_layers::ConvShape& s) const override;
  size_t weights_bytes(const host_layers::ConvShape& s) const override;
  // own_weights from W, as forward writes them first: for a backward_data whose forward ran on other
  // kernels (the input gradient of a convolution run at stride 1 for a strided one, say).
  void write_own_weights(const host_layers::ConvShape& s, const float* W, void* own_weights,
                         cudaStream_t stream) const;
  void forward(const host_layers::ConvShape& s, const float* x, const float* W, const float* bias, void* own_weights,
               float* y, cudaStream_t stream) const override;
  void backward_data(const host_layers::ConvShape& s, const float* W, const void* own_weights, const float* dy,
                     float* dx, cudaStream_t stream) const override;
  // For a normalisation right after the conv (then one object a conv): while `stats` is set, every
  // forward pass that 10.6 runs also writes its blocks' statistics there (conv2d_forward_mma_tiled's
  // stats), statistics_entries(s) a channel; 0 entries where 10.6 does not run it. Null: none.
  void write_statistics_to(float* stats) { stats_ = stats; }
  int statistics_entries(const host_layers::ConvShape& s) const;
  // 10.7 where it runs (conv2); elsewhere lesson 09's FP32 weight gradient stays.
  bool runs_weight_gradient(const host_layers::ConvShape& s) const override;
  size_t weight_workspace_floats(const host_layers::ConvShape& s) const override;
  void backward_weight(const host_layers::ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                       float* workspace, cudaStream_t stream) const override;

 private:
  int parts(const host_layers::ConvShape& s, bool backward_data) const;
  int images_per_block(const host_layers::ConvShape& s) const;
  bool one_wave_;
  float* stats_ = nullptr;
};

}  // namespace tensor_cores
