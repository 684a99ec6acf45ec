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
  // TODO(04.1): C[row][col] = sum over k < K of A[row][k] * B[k][col] for every row < M and
  // col < N, one thread per element of C: the grid's x dimension runs over columns, its y
  // dimension over rows (blocks of kBlockCols x kBlockRows threads; the launcher sizes the grid).
  // The last blocks stick out past the matrix: a thread outside C writes nothing and reads
  // nothing (the memory after A, B and C may hold NaN). K may be 0 (C = 0) or long.
  // Offsets in size_t: row * K may pass 2^31.
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
