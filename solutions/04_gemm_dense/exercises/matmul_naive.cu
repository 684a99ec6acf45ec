// Lesson 04, step 04.1: the naive matmul, one thread per output element.
#include "course/cuda_check.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense::detail {

namespace {

// A block of 32 x 8 threads covers 8 rows x 32 columns of C.
constexpr int kBlockCols = 32, kBlockRows = 8;

// Thread (x, y) of the grid computes C[row][col], row = y, col = x. Neighbouring threads of a
// warp have neighbouring columns: their reads of B[k][col] and writes of C[row][col] are
// coalesced, and they all read the same A[row][k] (one broadcast).
__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;  // the last blocks stick out past the matrix
  const float* a = A + size_t(row) * K;  // size_t: row * K may pass 2^31
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[k] * B[size_t(k) * N + col];
  C[size_t(row) * N + col] = acc;
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
