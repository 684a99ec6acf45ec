// Lesson 04, step 04.4: a 2-D register tile, each thread an 8 x 8 piece of C. YOUR FILE.
// The launcher at the bottom is written; fill in the kernel body.
#include "course/cuda_check.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense::detail {

namespace {

constexpr int kBM = 128, kBN = 128, kBK = 16;  // block tile of C, and the K depth of one stage
constexpr int kTM = 8, kTN = 8;                // register tile of one thread
constexpr int kThreadsX = kBN / kTN, kThreadsY = kBM / kTM;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kLoadsA = kBM * kBK / kThreads;  // elements of each tile one thread loads per stage
constexpr int kLoadsB = kBK * kBN / kThreads;
static_assert(kBM % kTM == 0 && kBN % kTN == 0, "the threads' register tiles cover the block tile");
static_assert(kThreads == 256, "the launch bounds below: 256 threads, two blocks per SM");
static_assert(kLoadsA * kThreads == kBM * kBK && kLoadsB * kThreads == kBK * kBN,
              "every thread loads the same whole number of elements per stage");
static_assert(kThreads % kBK == 0 && kThreads % kBN == 0, "a thread loads the same column of every tile row it visits");
static_assert((kBM + kBN) * kBK * sizeof(float) <= 48 * 1024, "static shared memory is limited to 48 KiB");

__global__ void __launch_bounds__(kThreads, 2)
    matmul_2d_tile_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                          int K) {
  // TODO(04.4): C = A * B (row-major, as in 04.1) for the kBM x kBN tile of C at
  // (m0, n0) = (blockIdx.y * kBM, blockIdx.x * kBN), with kThreads threads: thread
  // (tx, ty) = (t % kThreadsX, t / kThreadsX) computes the kTM x kTN outputs in rows
  // m0 + ty * kTM + {0..7} and columns n0 + tx * kTN + {0..7}, kept in registers, from kBK-deep
  // stages of A and B staged in the shared tiles As[m][k] (as A lies in memory) and Bs[k][n].
  //   * Scalar loads, every one bounds-checked: elements outside A or B read as 0 (never read
  //     past the matrices); only the elements inside C are written. Offsets in size_t.
  //   * No early return: every thread reaches every __syncthreads.
}

}  // namespace

void matmul_2d_tile(const float* A, const float* B, float* C, int M, int N, int K) {
  if (!check_matmul_sizes("matmul tile_2d", M, N, K)) return;
  const dim3 grid(blocks_for(N, kBN), blocks_for(M, kBM));
  check_grid_rows("matmul tile_2d", grid.y);
  matmul_2d_tile_kernel<<<grid, kThreads>>>(A, B, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm_dense::detail
