// Lesson 04, step 04.7: the bias gradient as a parallel reduction, and the dense layer built
// from your GEMMs (steps 04.6 and 04.7). YOUR FILE.
#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_dense.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense {

namespace {

// column_sums: a block of 32 x 16 threads owns 32 neighbouring columns.
constexpr int kSumColumns = 32, kSumRowThreads = 16;
static_assert((kSumRowThreads & (kSumRowThreads - 1)) == 0, "the tree halves the row threads: a power of two");
static_assert(kSumColumns * kSumRowThreads <= 1024, "at most 1024 threads per block");

__global__ void column_sums_kernel(const float* m, float* sums, int rows, int cols) {
  // TODO(04.7): sums[col] = sum over r < rows of m[r * cols + col] (m row-major [rows x cols]),
  // written (not added) for every col < cols. The launch: blocks of kSumColumns x kSumRowThreads
  // threads (tx = threadIdx.x, ty = threadIdx.y); block blockIdx.x owns the columns
  // blockIdx.x * kSumColumns + tx, and its kSumRowThreads rows of threads share each column.
  // rows == 0 gives 0; any rows (1, 3, 1000, 4097). Threads past the last column read and write
  // nothing, but still reach every __syncthreads.
}

// y[b][o] = bias[o] for i = b * out + o < count (grid-stride): dense_forward's starting value.
__global__ void broadcast_rows_kernel(const float* bias, float* y, size_t count, int out) {
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
  broadcast_rows_kernel<<<blocks, threads>>>(bias, y, count, out);  // y = bias in every row
  CUDA_CHECK_LAUNCH();
  // TODO(04.7): y [batch x out] = x [batch x in] * W^T + bias, W [out x in]. y already holds bias
  // in every row: add x * W^T on top of it with one of your GEMMs of 04.6/04.7 (beta = 1).
  (void)x, (void)W;
  course::todo("04.7", "dense_forward");
}

void dense_backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias, int batch,
                    int in, int out) {
  check_dense_sizes("dense_backward", batch, in, out);
  // TODO(04.7): OVERWRITE the three gradients of lesson 01's dense_backward (the outputs may hold
  // NaN), with your GEMMs of 04.6/04.7 and column_sums:
  //   dx    [batch x in] = dy [batch x out] * W [out x in]
  //   dW    [out x in]   = dy^T * x
  //   dbias [out]        = the column sums of dy
  // Empty sizes must still give the right answer: batch == 0 means dW = 0 and dbias = 0.
  (void)x, (void)W, (void)dy, (void)dx, (void)dW, (void)dbias;
  course::todo("04.7", "dense_backward");
}

}  // namespace gemm_dense
