#pragma once
// Lesson 10, step 10.8: a warpgroup's products of one stage on Hopper: wgmma straight from shared
// memory, described by descriptors. YOUR FILE: issue_stage_mma (marked TODO). A header: it is
// compiled into the sm_90a part of the lesson (gemm_wgmma.cu). The producer, the barriers, the
// loop over stages and the stores are given (wgmma_gemm.cuh, gemm_wgmma.cu).
#include "wgmma_gemm.cuh"

namespace tensor_cores::detail {

#if COURSE_WGMMA
template <class F>
__device__ __forceinline__ void issue_stage_mma(const typename F::Element* a_tile, const typename F::Element* b_tile,
                                                float (&acc)[kWgAccumulators]) {
  // TODO(10.8): issue this warpgroup's products of one stage as ONE group, without waiting:
  // wgmma_fence(); then for each k slice s < F::kStageK / F::kStepK: a descriptor of A's slice
  // (a_tile: K-major), one of B's (b_tile: N-major for BF16, F::kBNMajor; K-major B^T for TF32),
  // wgmma_async<F>(acc, da, db); then wgmma_commit(). The descriptors' starts and byte offsets:
  // see smem_descriptor in wgmma_gemm.cuh.
  (void)a_tile, (void)b_tile, (void)acc;
}
#endif

}  // namespace tensor_cores::detail
