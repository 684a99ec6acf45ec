#pragma once
// Lesson 10, step 10.2: a warp's WMMA tile: it loads 16 x 16 (x k) fragments of A and B from shared
// memory and lets the Tensor Cores multiply-add them into its accumulators. YOUR FILE:
// warp_tile_mma (marked TODO). A header, because 10.2's GEMM and 10.3's pipelined GEMM both run it.
// The block's tiles, the staging and the stores are given (wmma_gemm.cuh, gemm_wmma.cu).
#include "wmma_gemm.cuh"

namespace tensor_cores::detail {

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

}  // namespace tensor_cores::detail
