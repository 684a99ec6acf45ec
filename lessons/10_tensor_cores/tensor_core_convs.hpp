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
  // For a normalisation after the conv: where 10.6 runs the forward pass, how many entries of
  // statistics a channel it writes with them (conv2d_forward_mma_tiled's stats), else 0 (none).
  int statistics_entries(const host_layers::ConvShape& s) const;
  // forward, and where statistics_entries(s) > 0 those statistics to `stats` too.
  void forward_with_statistics(const host_layers::ConvShape& s, const float* x, const float* W, const float* bias,
                               void* own_weights, float* y, float* stats, cudaStream_t stream) const;
  // 10.7 where it runs (conv2); elsewhere lesson 09's FP32 weight gradient stays.
  bool runs_weight_gradient(const host_layers::ConvShape& s) const override;
  size_t weight_workspace_floats(const host_layers::ConvShape& s) const override;
  void backward_weight(const host_layers::ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                       float* workspace, cudaStream_t stream) const override;

 private:
  int parts(const host_layers::ConvShape& s, bool backward_data) const;
  int images_per_block(const host_layers::ConvShape& s) const;
  bool one_wave_;
};

}  // namespace tensor_cores
