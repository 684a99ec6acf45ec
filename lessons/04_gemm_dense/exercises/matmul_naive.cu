// Lesson 04, step 04.1: the naive matmul, one thread per output element. YOUR FILE.
// C[M x N] = A[M x K] * B[K x N], all row-major device arrays. The launcher at the bottom is
// written; fill in the kernel body.
#include "course/cuda_check.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense::detail {

namespace {

// A block of 32 x 8 threads covers 8 rows x 32 columns of C.
constexpr int kBlockCols = 32, kBlockRows = 8;

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(04.1): thread (x, y) of the grid computes ONE element of C:
  //   col = blockIdx.x * blockDim.x + threadIdx.x,  row = blockIdx.y * blockDim.y + threadIdx.y
  //   if (row >= M || col >= N) return;        // the last blocks stick out past the matrix
  //   C[row][col] = sum over k < K of A[row][k] * B[k][col]
  // Row-major: A[row][k] is A[row * K + k], B[k][col] is B[k * N + col], C[row][col] is
  // C[row * N + col]. Do the row offsets in size_t (row * K may pass 2^31), sum in a register
  // and store once. x -> columns: a warp's reads of B and writes of C are then coalesced.
}

}  // namespace

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  if (!check_matmul_sizes("matmul naive", M, N, K)) return;
  const dim3 block(kBlockCols, kBlockRows);
  const dim3 grid(blocks_for(N, kBlockCols), blocks_for(M, kBlockRows));
  check_grid_rows("matmul naive", grid.y);
  matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm_dense::detail
