// Lesson 04, step 04.4: a 2-D register tile. A block of 256 threads computes a 128 x 128 tile of
// C; each thread computes an 8 x 8 piece of it in registers: per k it reads 8 values of A and 8
// of B from shared memory and does their 64 multiply-adds (an outer product).
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

// Thread (tx, ty) = (t % kThreadsX, t / kThreadsX) owns rows m0 + ty*kTM + {0..7} and columns
// n0 + tx*kTN + {0..7}.
__global__ void __launch_bounds__(kThreads, 2)
    matmul_2d_tile_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                          int K) {
  __shared__ float As[kBM][kBK];  // A's tile as it lies in A: As[m][k]
  __shared__ float Bs[kBK][kBN];  // Bs[k][n]
  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;

  // The loads: element threadIdx.x + l * kThreads of each tile, in the order the tile lies in
  // memory (consecutive threads, consecutive addresses). A thread's elements are kRowsA (kRowsB)
  // rows apart in the same column, so one base pointer per operand and stage reaches them all:
  // with a full address per load kept in registers, the 64 accumulators spilled (-Xptxas -v).
  constexpr int kRowsA = kThreads / kBK, kRowsB = kThreads / kBN;
  const int a_r = threadIdx.x / kBK, a_c = threadIdx.x % kBK;
  const int b_r = threadIdx.x / kBN, b_c = threadIdx.x % kBN;
  for (int k0 = 0; k0 < K; k0 += kBK) {
    const float* a_src = A + size_t(m0 + a_r) * K + (k0 + a_c);  // only read where inside A
    const float* b_src = B + size_t(k0 + b_r) * N + (n0 + b_c);
    // Zeros outside the matrices add nothing: the loop below needs no bounds checks.
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l)
      As[a_r + l * kRowsA][a_c] = (m0 + a_r + l * kRowsA < M && k0 + a_c < K) ? a_src[size_t(l * kRowsA) * K] : 0.0f;
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l)
      Bs[b_r + l * kRowsB][b_c] = (k0 + b_r + l * kRowsB < K && n0 + b_c < N) ? b_src[size_t(l * kRowsB) * N] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      float a[kTM], b[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) a[i] = As[ty * kTM + i][k];
#pragma unroll
      for (int j = 0; j < kTN; ++j) b[j] = Bs[k][tx * kTN + j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // everyone is done reading before the next stage overwrites the tiles
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = m0 + ty * kTM + i;
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int col = n0 + tx * kTN + j;
      if (col < N) C[size_t(row) * N + col] = acc[i][j];
    }
  }
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
