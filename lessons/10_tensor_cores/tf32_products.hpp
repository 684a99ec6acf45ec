#pragma once
// Lesson 10, step 10.10: lesson 09's implicit-GEMM engine on the Tensor Cores. Your Tf32Math
// (exercises/tf32_math.cuh) is a math policy of lesson 09's engine (gemm_core.cuh): the same tiles,
// loads, stages, gathers and epilogues, each stage multiplied by mma.sync in TF32 with FP32 sums.
// Built with lesson 09's gathers (its solutions), it gives lesson 09's six products in TF32: what
// train_mixed --precision tf32 trains on, and the dense products of --precision bf16.
#include <cuda_runtime.h>

#include "fast_training.hpp"

namespace tensor_cores {

// Lesson 09's products (fast_training.hpp: the same shapes, workspaces and checks) with every stage
// on the Tensor Cores in TF32 (inputs rounded to TF32 on their way into shared memory, FP32 sums).
// Their name is "on the Tensor Cores in TF32"; throws course::Error when this GPU has no TF32 Tensor
// Cores (compute capability below 8.0). Their check (what a trainer runs before it trains) puts a
// dense product beside lesson 09's FP32 one and throws course::Error naming the step when they
// differ by more than TF32's rounding.
const fast_training::GemmProducts& tf32_products();

namespace detail {
// The six, unchecked (tf32_products hands them out once the check passed).
void conv_forward_tf32(const fast_training::ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                       cudaStream_t stream);
void conv_backward_data_tf32(const fast_training::ConvShape& s, const float* W, const float* dy, float* dx,
                             float* workspace, cudaStream_t stream);
void conv_backward_weight_tf32(const fast_training::ConvShape& s, const float* x, const float* dy, float* dW,
                               float* dbias, float* workspace, cudaStream_t stream);
void dense_forward_tf32(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                        bool relu, float* workspace, cudaStream_t stream);
void dense_backward_data_tf32(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                              int out, float* workspace, cudaStream_t stream);
void dense_backward_weight_tf32(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                float* workspace, cudaStream_t stream);
}  // namespace detail

}  // namespace tensor_cores
