// Lesson 10, step 10.2: a GEMM on the Tensor Cores through WMMA: each warp loads 16 x 16 (x k)
// fragments of A and B from shared memory and lets the Tensor Cores multiply-add them into its
// accumulators. YOUR FILE: warp_tile_mma (marked TODO); the block's tiles, the staging and the
// stores are given (wmma_gemm.cuh), and so are the checks and launches below.
#include <type_traits>

#include "course/cuda_check.hpp"
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"
#include "wmma_gemm.cuh"

namespace tensor_cores {

namespace detail {

#if COURSE_WMMA  // (compiled only for GPUs with TF32 and BF16 Tensor Cores: see wmma_gemm.cuh)
template <class F>
__device__ void warp_tile_mma(const typename F::Element* as, int lda, const typename F::Element* bs, int ldb,
                              Accumulator<F> (&acc)[2][2]) {
  // TODO(10.2): for each fragment depth kk = 0, F::kFragK, ... below kStageK: load the warp's two
  // A fragments (rows 16 i .. of as, columns kk ..; leading dimension lda) and two B fragments
  // (rows kk .. of bs, columns 16 j ..; ldb) with wmma::load_matrix_sync; for Tf32, round every
  // element of them with wmma::__float_to_tf32; then acc[i][j] += a[i] * b[j] (wmma::mma_sync).
  (void)as, (void)lda, (void)bs, (void)ldb, (void)acc;
}
#endif

}  // namespace detail

// ---- given: checks and launches ------------------------------------------------------------------
namespace {

template <class F>
void launch(const typename F::Element* A, const typename F::Element* B, float* C, int M, int N, int K,
            cudaStream_t stream) {
  const dim3 grid(unsigned((N + detail::kBlockN - 1) / detail::kBlockN), unsigned((M + detail::kBlockM - 1) / detail::kBlockM));
  detail::gemm_wmma_kernel<F><<<grid, detail::kThreads, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void gemm_wmma_tf32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  detail::check_tensor_core_gemm("gemm_wmma_tf32", M, N, K);
  launch<detail::Tf32>(A, B, C, M, N, K, stream);
}

void gemm_wmma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream) {
  detail::check_tensor_core_gemm("gemm_wmma_bf16", M, N, K);
  launch<detail::Bf16>(reinterpret_cast<const __nv_bfloat16*>(A), reinterpret_cast<const __nv_bfloat16*>(B), C, M,
                       N, K, stream);
}

}  // namespace tensor_cores
