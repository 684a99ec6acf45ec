#pragma once
// Lesson 09 (given, read-only): the dense layer's three products when a row of the output is
// short: out <= kSmallOut output features (model A's fc2 has 10). A 64-wide GEMM tile would
// leave most of its columns idle and a split reduction would add a second launch, for a product
// of about a million multiply-adds that a few thousand threads finish in one short kernel.
// Same results and contracts as 09.7's functions (they call these for such shapes); every sum in
// a fixed order: the same bits on every run.
#include <cuda_runtime.h>

namespace fast_training::detail {

constexpr int kSmallOut = 16;

// y [batch x out] = act(x [batch x in] * W^T + bias), act: ReLU if relu. A block per row of x.
void dense_small_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                         bool relu, cudaStream_t stream);
// dx [batch x in] = (dy [batch x out] * W) where mask > 0 (mask null: everywhere). A thread per dx.
void dense_small_backward_data(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                               int out, cudaStream_t stream);
// dW [out x in] = dy^T * x, dbias [out] = the column sums of dy. A thread per (column of x, part
// of the batch), then the parts added in order.
void dense_small_backward_weight(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                 cudaStream_t stream);

}  // namespace fast_training::detail
