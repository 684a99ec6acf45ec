// Lesson 10 (given): lesson 09's fused dense products (its solutions' gathers and epilogues) with
// your Tf32Math in the engine's stages (tf32_products.hpp).
#include <exercises/tf32_math.cuh>

#include "../../solutions/09_fast_training/exercises/dense_fused.cuh"
#include "tf32_products.hpp"

namespace tensor_cores::detail {

void dense_forward_tf32(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                        bool relu, float* workspace, cudaStream_t stream) {
  fast_training::dense_forward<Tf32Math>(x, W, bias, y, batch, in, out, relu, workspace, stream);
}

void dense_backward_data_tf32(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                              int out, float* workspace, cudaStream_t stream) {
  fast_training::dense_backward_data<Tf32Math>(W, dy, mask, dx, batch, in, out, workspace, stream);
}

void dense_backward_weight_tf32(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                float* workspace, cudaStream_t stream) {
  fast_training::dense_backward_weight<Tf32Math>(x, dy, dW, dbias, batch, in, out, workspace, stream);
}

}  // namespace tensor_cores::detail
