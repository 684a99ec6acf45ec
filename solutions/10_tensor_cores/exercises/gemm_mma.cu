// Lesson 10, step 10.4: under WMMA: mma.sync with operands loaded by ldmatrix. A warp's 64 x 64 of
// C is 4 x 8 tiles of m16 x n8 in registers; per 16 values of k it loads 4 A operands and 8 B
// operands (4 ldmatrix of each kind) and issues 32 mma.sync. The block, the pipeline (10.3) and the
// stores are given (mma_gemm.cuh).
#include "course/cuda_check.hpp"
#include "gemm_checks.hpp"
#include <exercises/pipeline_loop.cuh>  // <>: this build's copy (solutions/ or yours), never a neighbour's
#include "mma_gemm.cuh"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace detail {

#if COURSE_WMMA  // (compiled only for GPUs with TF32 and BF16 Tensor Cores: see wmma_gemm.cuh)
__device__ void warp_mma_bf16(const __nv_bfloat16* as, int lda, const __nv_bfloat16* bs, int ldb,
                              float (&acc)[kMmaTilesM][kMmaTilesN][4]) {
  const int lane = threadIdx.x % 32;
  for (int kk = 0; kk < MmaShape::kTileK; kk += 16) {
    uint32_t a[kMmaTilesM][4], b[kMmaTilesN / 2][4];
    // A: the 16 x 16 of rows 16 i ..: lane l gives row l % 16, columns kk + 8 (l / 16) ...
    for (int i = 0; i < kMmaTilesM; ++i) ldmatrix_x4(a[i], as + (16 * i + lane % 16) * lda + kk + (lane / 16) * 8);
    // B: 16 (k) x 16 (n) at columns 16 jj ..: lane l gives row kk + l % 16, columns 16 jj + 8 (l / 16);
    // registers 0, 1: the n8 tile 2 jj; 2, 3: the n8 tile 2 jj + 1.
    for (int jj = 0; jj < kMmaTilesN / 2; ++jj)
      ldmatrix_x4_trans(b[jj], bs + (kk + lane % 16) * ldb + 16 * jj + (lane / 16) * 8);
    for (int i = 0; i < kMmaTilesM; ++i)
      for (int j = 0; j < kMmaTilesN; ++j) mma_bf16_16816(acc[i][j], a[i], b[j / 2][2 * (j % 2)], b[j / 2][2 * (j % 2) + 1]);
  }
}
#endif

// Given: the kernel (10.3's loop on this block's stages), then C from the registers.
__global__ void __launch_bounds__(kMmaThreads) gemm_mma_kernel(const __nv_bfloat16* __restrict__ A,
                                                               const __nv_bfloat16* __restrict__ B,
                                                               float* __restrict__ C, int M, int N, int K,
                                                               bool async_a, bool async_b) {
#if COURSE_WMMA
  extern __shared__ __align__(128) unsigned char mma_smem[];
  float acc[kMmaTilesM][kMmaTilesN][4] = {};
  const int m0 = blockIdx.y * kMmaTileM, n0 = blockIdx.x * kMmaTileN;
  const MmaPipeline p{{A, B, M, N, K, m0, n0, async_a, async_b, reinterpret_cast<__nv_bfloat16*>(mma_smem)}, acc};
  run_pipeline(p, (K + MmaShape::kTileK - 1) / MmaShape::kTileK);
  p.wait<0>();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int row0 = m0 + (warp / kMmaWarpsN) * kMmaWarpM + lane / 4;
  const int col0 = n0 + (warp % kMmaWarpsN) * kMmaWarpN + 2 * (lane % 4);
  for (int i = 0; i < kMmaTilesM; ++i)
    for (int j = 0; j < kMmaTilesN; ++j)
      for (int half = 0; half < 2; ++half) {  // c0, c1: row g; c2, c3: row g + 8
        const int r = row0 + 16 * i + 8 * half, c = col0 + 8 * j;
        if (r >= M) continue;
        if (c < N) C[size_t(r) * N + c] = acc[i][j][2 * half];
        if (c + 1 < N) C[size_t(r) * N + c + 1] = acc[i][j][2 * half + 1];
      }
#endif
}

}  // namespace detail

// ---- given: checks and launch --------------------------------------------------------------------
void gemm_mma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream) {
  detail::check_tensor_core_gemm("gemm_mma_bf16", M, N, K);
  using S = detail::MmaShape;
  const bool async_a = detail::rows_16_byte_aligned(A, K, 2), async_b = detail::rows_16_byte_aligned(B, N, 2);
  CUDA_CHECK(cudaFuncSetAttribute(detail::gemm_mma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(S::kBytes)));
  const dim3 grid(unsigned((N + detail::kMmaTileN - 1) / detail::kMmaTileN),
                  unsigned((M + detail::kMmaTileM - 1) / detail::kMmaTileM));
  detail::gemm_mma_kernel<<<grid, detail::kMmaThreads, S::kBytes, stream>>>(
      reinterpret_cast<const __nv_bfloat16*>(A), reinterpret_cast<const __nv_bfloat16*>(B), C, M, N, K, async_a,
      async_b);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tensor_cores
