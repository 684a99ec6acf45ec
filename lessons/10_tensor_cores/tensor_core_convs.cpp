// Lesson 10 (given): the Tensor Core convolutions as the fast network's ConvKernels (tensor_core_convs.hpp).
#include "tensor_core_convs.hpp"

#include "tensor_cores.hpp"

namespace tensor_cores {

namespace {
bool tiled(const host_layers::ConvShape& s) { return conv_mma_tiled_problem(s).empty(); }
}  // namespace

std::string TensorCoreConvs::name() const {
  return std::string("the Tensor Cores in BF16 (10.6 where it runs, else 10.5; the weight gradient by 10.7 where it "
                     "runs; ") + (one_wave_ ? "grids of one wave, 10.9)" : "one block an image, 10.9 off)");
}

int TensorCoreConvs::parts(const host_layers::ConvShape& s, bool backward_data) const {
  return one_wave_ ? conv_mma_tiled_parts(s, backward_data, stats_ != nullptr) : 1;
}

int TensorCoreConvs::images_per_block(const host_layers::ConvShape& s) const {
  return one_wave_ ? conv_mma_weight_images_per_block(s) : 2;
}

bool TensorCoreConvs::runs(const host_layers::ConvShape& s) const {
  return tensor_core_problem().empty() && s.stride == 1 && s.kernel_h == s.kernel_w && s.pad <= s.kernel_h - 1;
}

size_t TensorCoreConvs::weights_bytes(const host_layers::ConvShape& s) const {
  return tiled(s) ? conv_mma_tiled_weights_size(s) * sizeof(uint16_t) : 0;
}

void TensorCoreConvs::write_own_weights(const host_layers::ConvShape& s, const float* W, void* own_weights,
                                        cudaStream_t stream) const {
  if (tiled(s)) conv_mma_tiled_weights(s, W, static_cast<uint16_t*>(own_weights), stream);  // BF16, both layouts
}

int TensorCoreConvs::statistics_entries(const host_layers::ConvShape& s) const {
  return tiled(s) ? conv_mma_tiled_statistics_entries(s) : 0;
}

void TensorCoreConvs::forward(const host_layers::ConvShape& s, const float* x, const float* W, const float* bias,
                              void* own_weights, float* y, cudaStream_t stream) const {
  if (!tiled(s)) {
    conv2d_forward_mma(s, x, W, bias, y, stream);
    return;
  }
  write_own_weights(s, W, own_weights, stream);  // the updated weights
  conv2d_forward_mma_tiled(s, x, static_cast<const uint16_t*>(own_weights), bias, y, stream, parts(s, false), stats_);
}

void TensorCoreConvs::backward_data(const host_layers::ConvShape& s, const float* W, const void* own_weights,
                                    const float* dy, float* dx, cudaStream_t stream) const {
  if (!tiled(s)) {
    conv2d_backward_data_mma(s, W, dy, dx, stream);
    return;
  }
  conv2d_backward_data_mma_tiled(s, static_cast<const uint16_t*>(own_weights), dy, dx, stream,
                                 parts(s, true));
}

bool TensorCoreConvs::runs_weight_gradient(const host_layers::ConvShape& s) const {
  return runs(s) && conv_mma_weight_problem(s).empty();
}

size_t TensorCoreConvs::weight_workspace_floats(const host_layers::ConvShape& s) const {
  return conv_mma_weight_workspace_floats(s, images_per_block(s));
}

void TensorCoreConvs::backward_weight(const host_layers::ConvShape& s, const float* x, const float* dy, float* dW,
                                      float* dbias, float* workspace, cudaStream_t stream) const {
  conv2d_backward_weight_mma(s, x, dy, dW, dbias, workspace, stream, images_per_block(s));
}

}  // namespace tensor_cores
