// Lesson 04, step 04.2: shared-memory tiling. A block computes a kTile x kTile tile of C; it
// walks along K one kTile-wide strip at a time, staging the strips of A and B in shared memory
// so that every value fetched from global memory is used kTile times.
#include "course/cuda_check.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense::detail {

namespace {

constexpr int kTile = 32;
static_assert(kTile * kTile <= 1024, "one thread per tile element: at most 1024 threads per block");
static_assert(kTile % 32 == 0, "a warp must span one tile row, so B's row and C's row are coalesced");

// Thread (tx, ty) owns C[row][col] with row = tile row + ty, col = tile col + tx.
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[kTile][kTile];  // As[ty][k]: read by a warp at one address (broadcast)
  __shared__ float Bs[kTile][kTile];  // Bs[k][tx]: read by a warp along a row (no conflict)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    // Each thread loads one element of each strip; outside the matrix it stores 0, which
    // adds nothing to the products, so the loop below needs no bounds checks.
    const int ka = k0 + tx, kb = k0 + ty;
    As[ty][tx] = (row < M && ka < K) ? A[size_t(row) * K + ka] : 0.0f;
    Bs[ty][tx] = (kb < K && col < N) ? B[size_t(kb) * N + col] : 0.0f;
    __syncthreads();  // the strips are complete before anyone reads them
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();  // everyone is done reading before the next strip overwrites them
  }
  // The store is bounds-checked, but no thread returned early: all of them had to take part
  // in the loads and reach every __syncthreads.
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  if (!check_matmul_sizes("matmul tiled", M, N, K)) return;
  const dim3 block(kTile, kTile);
  const dim3 grid(blocks_for(N, kTile), blocks_for(M, kTile));
  check_grid_rows("matmul tiled", grid.y);
  matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm_dense::detail
