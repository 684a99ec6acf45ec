// Lesson 09 (given): the implicit-GEMM convolutions of fast_training.hpp, your 09.2-09.4 with this
// lesson's math (FfmaMath: FP32 fused multiply-adds).
#include <exercises/conv_implicit_backward_data.cuh>
#include <exercises/conv_implicit_backward_weight.cuh>
#include <exercises/conv_implicit_forward.cuh>

namespace fast_training {

void conv2d_forward_implicit(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                             cudaStream_t stream) {
  conv_forward<FfmaMath>(s, x, W, bias, y, stream);
}

void conv2d_backward_data_implicit(const ConvShape& s, const float* W, const float* dy, float* dx, float* workspace,
                                   cudaStream_t stream) {
  conv_backward_data<FfmaMath>(s, W, dy, dx, workspace, stream);
}

void conv2d_backward_weight_implicit(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                                     float* workspace, cudaStream_t stream) {
  conv_backward_weight<FfmaMath>(s, x, dy, dW, dbias, workspace, stream);
}

}  // namespace fast_training
