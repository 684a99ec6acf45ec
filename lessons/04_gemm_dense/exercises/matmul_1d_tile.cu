// Lesson 04, step 04.3: a 1-D register tile, each thread a column of kTM outputs. YOUR FILE.
// The launcher at the bottom is written; fill in the kernel body.
#include "course/cuda_check.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense::detail {

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 8;  // block tile of C, and the K depth of one stage
constexpr int kTM = 8;                      // outputs per thread: a column of kTM rows
constexpr int kThreads = kBM * kBN / kTM;
static_assert(kBM % kTM == 0, "a thread's column of kTM rows tiles the block's rows");
static_assert(kBM * kBK == kThreads && kBK * kBN == kThreads, "each thread loads one element of each tile");
static_assert(kBN % 32 == 0, "a warp's 32 threads share their rows: A's values are broadcast, B's a row");
static_assert(kThreads <= 1024, "at most 1024 threads per block");

__global__ void __launch_bounds__(kThreads)
    matmul_1d_tile_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                          int K) {
  // TODO(04.3): C = A * B (row-major, as in 04.1) for the kBM x kBN tile of C at
  // (m0, n0) = (blockIdx.y * kBM, blockIdx.x * kBN), with kThreads threads (1-D block): thread t
  // computes the kTM outputs of column n0 + t % kBN in rows m0 + (t / kBN) * kTM + {0 .. kTM-1},
  // keeping them in registers, from kBK-deep stages of A and B staged in the shared tiles (each
  // thread loads one element of each per stage).
  //   * Any M, N, K: tile elements outside A or B read as 0 (never read past the matrices); only
  //     the elements inside C are written. Offsets in size_t.
  //   * No early return: every thread reaches every __syncthreads.
}

}  // namespace

void matmul_1d_tile(const float* A, const float* B, float* C, int M, int N, int K) {
  if (!check_matmul_sizes("matmul tile_1d", M, N, K)) return;
  const dim3 grid(blocks_for(N, kBN), blocks_for(M, kBM));
  check_grid_rows("matmul tile_1d", grid.y);
  matmul_1d_tile_kernel<<<grid, kThreads>>>(A, B, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm_dense::detail
