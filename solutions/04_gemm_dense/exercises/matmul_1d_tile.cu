// Lesson 04, step 04.3: a 1-D register tile. A block of 512 threads computes a 64 x 64 tile of
// C; each thread computes a column of kTM = 8 outputs, so every value of B it reads from shared
// memory serves 8 multiply-adds instead of one.
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

// Thread t owns column n0 + t % kBN and rows m0 + (t / kBN) * kTM + {0 .. kTM-1}.
__global__ void __launch_bounds__(kThreads)
    matmul_1d_tile_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                          int K) {
  __shared__ float As[kBM][kBK];  // A's tile as it lies in A: As[m][k]
  __shared__ float Bs[kBK][kBN];  // Bs[k][n]
  const int tx = threadIdx.x % kBN, ty = threadIdx.x / kBN;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  // The element of each tile this thread loads: 8 neighbours along k for A (32 bytes of a row),
  // 64 along n for B (a warp reads 128 contiguous bytes).
  const int a_m = threadIdx.x / kBK, a_k = threadIdx.x % kBK;
  const int b_k = threadIdx.x / kBN, b_n = threadIdx.x % kBN;

  float acc[kTM];
#pragma unroll
  for (int i = 0; i < kTM; ++i) acc[i] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += kBK) {
    // Zeros outside the matrices add nothing: the loop below needs no bounds checks.
    const int m = m0 + a_m, ka = k0 + a_k, kb = k0 + b_k, n = n0 + b_n;
    As[a_m][a_k] = (m < M && ka < K) ? A[size_t(m) * K + ka] : 0.0f;
    Bs[b_k][b_n] = (kb < K && n < N) ? B[size_t(kb) * N + n] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      const float b = Bs[k][tx];  // one shared read, kTM multiply-adds
#pragma unroll
      for (int i = 0; i < kTM; ++i) acc[i] += As[ty * kTM + i][k] * b;  // same address for the warp
    }
    __syncthreads();  // everyone is done reading before the next stage overwrites the tiles
  }

  const int col = n0 + tx;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = m0 + ty * kTM + i;
    if (row < M && col < N) C[size_t(row) * N + col] = acc[i];
  }
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
