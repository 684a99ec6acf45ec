#pragma once
// Lesson 10, step 10.2: a warp's WMMA tile: it loads 16 x 16 (x k) fragments of A and B from shared
// memory and lets the Tensor Cores multiply-add them into its accumulators. A header: 10.2's GEMM and
// 10.3's pipelined GEMM both run it (wmma_gemm.cuh, gemm_wmma.cu, pipelined_gemm.cuh).
#include <type_traits>

#include "wmma_gemm.cuh"

namespace tensor_cores::detail {

#if COURSE_WMMA  // (compiled only for GPUs with TF32 and BF16 Tensor Cores: see wmma_gemm.cuh)
template <class F>
__device__ void warp_tile_mma(const typename F::Element* as, int lda, const typename F::Element* bs, int ldb,
                              Accumulator<F> (&acc)[2][2]) {
  namespace wmma = nvcuda::wmma;
  for (int kk = 0; kk < kStageK; kk += F::kFragK) {
    FragmentA<F> a[2];
    FragmentB<F> b[2];
    for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], as + 16 * i * lda + kk, lda);
    for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], bs + kk * ldb + 16 * j, ldb);
    if constexpr (std::is_same_v<F, Tf32>) {  // floats in, TF32 into the Tensor Cores
      for (int i = 0; i < 2; ++i)
        for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
      for (int j = 0; j < 2; ++j)
        for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
    }
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
  }
}
#endif

}  // namespace tensor_cores::detail
