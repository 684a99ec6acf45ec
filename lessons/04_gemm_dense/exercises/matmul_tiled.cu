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
  // TODO(04.2): thread (tx, ty) = (threadIdx.x, threadIdx.y) owns C[row][col] with
  //   row = blockIdx.y * kTile + ty,  col = blockIdx.x * kTile + tx.
  //   __shared__ float As[kTile][kTile], Bs[kTile][kTile];
  //   for (k0 = 0; k0 < K; k0 += kTile):
  //     As[ty][tx] = A[row][k0 + tx]   or 0 when outside the matrix (row >= M or k0 + tx >= K)
  //     Bs[ty][tx] = B[k0 + ty][col]   or 0 when outside (k0 + ty >= K or col >= N)
  //     __syncthreads();                        // the strips are complete
  //     acc += sum over k < kTile of As[ty][k] * Bs[k][tx]   (zeros add nothing)
  //     __syncthreads();                        // all reads done before the next strip
  //   if (row < M && col < N) C[row][col] = acc;
  // Do NOT return early for threads outside C: every thread must help load and must reach
  // every __syncthreads.
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
