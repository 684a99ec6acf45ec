// Lesson 09 (given): the dense layer's fused products of fast_training.hpp, your 09.7 with this
// lesson's math (FfmaMath: FP32 fused multiply-adds), and the table of the engine's six products.
#include <algorithm>

#include <exercises/dense_fused.cuh>

namespace fast_training {

size_t dense_fused_workspace_floats(int batch, int in, int out) {
  check_sizes(batch, in, out, "dense_fused_workspace_floats");
  if (out <= detail::kSmallOut) return 1;  // the small kernels split nothing
  const auto floats = [](int M, int N, int K) {
    const Split s = split_of(M, N, K);
    return s.slices > 1 ? size_t(s.slices) * M * N : size_t(0);
  };
  return std::max({floats(batch, out, in), floats(batch, in, out), floats(out, in + 1, batch), size_t(1)});
}

void dense_forward_fused(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                         bool relu, float* workspace, cudaStream_t stream) {
  dense_forward<FfmaMath>(x, W, bias, y, batch, in, out, relu, workspace, stream);
}

void dense_backward_data_fused(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                               int out, float* workspace, cudaStream_t stream) {
  dense_backward_data<FfmaMath>(W, dy, mask, dx, batch, in, out, workspace, stream);
}

void dense_backward_weight_fused(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                 float* workspace, cudaStream_t stream) {
  dense_backward_weight<FfmaMath>(x, dy, dW, dbias, batch, in, out, workspace, stream);
}

const GemmProducts& fp32_products() {
  static const GemmProducts products{"FP32",
                                     conv2d_forward_implicit,
                                     conv2d_backward_data_implicit,
                                     conv2d_backward_weight_implicit,
                                     dense_forward_fused,
                                     dense_backward_data_fused,
                                     dense_backward_weight_fused};
  return products;
}

}  // namespace fast_training
