// Lesson 04, step 04.2: shared-memory tiling. YOUR FILE.
// A block of kTile x kTile threads computes a kTile x kTile tile of C. It walks along K one
// strip at a time: the block copies a kTile x kTile piece of A and of B into shared memory,
// then every thread uses the whole strip, so each value read from global memory serves kTile
// threads. The launcher at the bottom is written; fill in the kernel body.
#include "course/cuda_check.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense::detail {

namespace {

constexpr int kTile = 32;
static_assert(kTile * kTile <= 1024, "one thread per tile element: at most 1024 threads per block");
static_assert(kTile % 32 == 0, "a warp must span one tile row, so B's row and C's row are coalesced");

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(04.2): C = A * B (same layouts as 04.1) through kTile x kTile tiles of A and B in
  // shared memory. Thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) owns
  // C[blockIdx.y * kTile + threadIdx.y][blockIdx.x * kTile + threadIdx.x].
  // Any M, N, K, not only multiples of kTile: a tile element outside A or B reads as 0 (never
  // read past the matrices: the memory after them may hold NaN), and only elements inside C
  // are written. Do NOT return early for threads outside C: every thread must help load and
  // must reach every __syncthreads.
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
