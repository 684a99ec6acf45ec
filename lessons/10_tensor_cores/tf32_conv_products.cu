// Lesson 10 (given): lesson 09's implicit-GEMM convolutions (its solutions' gathers) with your
// Tf32Math in the engine's stages (tf32_products.hpp).
#include <exercises/tf32_math.cuh>

#include "../../solutions/09_fast_training/exercises/conv_implicit_backward_data.cuh"
#include "../../solutions/09_fast_training/exercises/conv_implicit_backward_weight.cuh"
#include "../../solutions/09_fast_training/exercises/conv_implicit_forward.cuh"
#include "tf32_products.hpp"

namespace tensor_cores::detail {

void conv_forward_tf32(const fast_training::ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                       cudaStream_t stream) {
  fast_training::conv_forward<Tf32Math>(s, x, W, bias, y, stream);
}

void conv_backward_data_tf32(const fast_training::ConvShape& s, const float* W, const float* dy, float* dx,
                             float* workspace, cudaStream_t stream) {
  fast_training::conv_backward_data<Tf32Math>(s, W, dy, dx, workspace, stream);
}

void conv_backward_weight_tf32(const fast_training::ConvShape& s, const float* x, const float* dy, float* dW,
                               float* dbias, float* workspace, cudaStream_t stream) {
  fast_training::conv_backward_weight<Tf32Math>(s, x, dy, dW, dbias, workspace, stream);
}

}  // namespace tensor_cores::detail
