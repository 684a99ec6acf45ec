// Lesson 04, step 04.7: the bias gradient as a parallel reduction, and the dense layer built
// from the GEMMs of steps 04.6 and 04.7.
#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_dense.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense {

namespace {

// column_sums: a block of 32 x 16 threads owns 32 neighbouring columns. Thread (tx, ty) adds
// up rows ty, ty + 16, ty + 32, ... of column tx (a warp reads 32 neighbouring floats of one
// row: coalesced); then the 16 partial sums of each column are combined in shared memory by
// a tree: 16 -> 8 -> 4 -> 2 -> 1. The order of additions is fixed: the result is the same on
// every run.
constexpr int kSumColumns = 32, kSumRowThreads = 16;
static_assert((kSumRowThreads & (kSumRowThreads - 1)) == 0, "the tree halves the row threads: a power of two");
static_assert(kSumColumns * kSumRowThreads <= 1024, "at most 1024 threads per block");

__global__ void column_sums_kernel(const float* __restrict__ m, float* __restrict__ sums, int rows, int cols) {
  __shared__ float partial[kSumRowThreads][kSumColumns];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * kSumColumns + tx;
  float sum = 0.0f;
  if (col < cols)
    for (int r = ty; r < rows; r += kSumRowThreads) sum += m[size_t(r) * cols + col];
  partial[ty][tx] = sum;
  __syncthreads();
  for (int half = kSumRowThreads / 2; half > 0; half /= 2) {
    if (ty < half) partial[ty][tx] += partial[ty + half][tx];
    __syncthreads();  // outside the if: every thread of the block must reach it
  }
  if (ty == 0 && col < cols) sums[col] = partial[0][tx];
}

// y[b][o] = bias[o]: the starting value the forward GEMM then accumulates into (beta = 1).
__global__ void broadcast_rows_kernel(const float* __restrict__ bias, float* __restrict__ y, size_t count, int out) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    y[i] = bias[i % out];
}

void check_dense_sizes(const char* what, int batch, int in, int out) {
  if (batch < 0 || in < 0 || out < 0)
    throw course::Error(std::string(what) + ": sizes must be >= 0, got batch = " + std::to_string(batch) +
                        ", in = " + std::to_string(in) + ", out = " + std::to_string(out));
}

}  // namespace

void column_sums(const float* m, float* sums, int rows, int cols) {
  if (rows < 0 || cols < 0)
    throw course::Error("column_sums: sizes must be >= 0, got rows = " + std::to_string(rows) +
                        ", cols = " + std::to_string(cols));
  if (cols == 0) return;
  column_sums_kernel<<<detail::blocks_for(cols, kSumColumns), dim3(kSumColumns, kSumRowThreads)>>>(m, sums, rows,
                                                                                                     cols);
  CUDA_CHECK_LAUNCH();
}

void dense_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out) {
  check_dense_sizes("dense_forward", batch, in, out);
  if (batch == 0 || out == 0) return;
  const size_t count = size_t(batch) * out;
  const int threads = 256;
  const int blocks = int(std::min<size_t>((count + threads - 1) / threads, 4096));
  broadcast_rows_kernel<<<blocks, threads>>>(bias, y, count, out);
  CUDA_CHECK_LAUNCH();
  // y [batch x out] = x [batch x in] * W^T + y: W [out x in] is the "B is N x K" operand.
  matmul_a_bt(x, W, y, batch, out, in, 1.0f);
}

void dense_backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias, int batch,
                    int in, int out) {
  check_dense_sizes("dense_backward", batch, in, out);
  // dx [batch x in] = dy [batch x out] * W [out x in]: a plain product.
  matmul(MatmulKernel::double_buffered, dy, W, dx, batch, in, out);
  // dW [out x in] = dy^T * x: dy [batch x out] is the "A is K x M" operand, K = batch.
  matmul_at_b(dy, x, dW, out, in, batch);
  // dbias [out] = sum over the batch of dy.
  column_sums(dy, dbias, batch, out);
}

}  // namespace gemm_dense
