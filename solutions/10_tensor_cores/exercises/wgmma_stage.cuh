#pragma once
// Lesson 10, step 10.8: a warpgroup's products of one stage on Hopper: wgmma straight from shared
// memory, described by descriptors. A header: it is compiled into the sm_90a part of the lesson
// (gemm_wgmma.cu). The producer, the barriers, the loop over stages and the stores are given
// (wgmma_gemm.cuh, gemm_wgmma.cu).
#include "wgmma_gemm.cuh"

namespace tensor_cores::detail {

#if COURSE_WGMMA
template <class F>
__device__ __forceinline__ void issue_stage_mma(const typename F::Element* a_tile, const typename F::Element* b_tile,
                                                float (&acc)[kWgAccumulators]) {
  constexpr int kSliceBytes = F::kStepK * int(sizeof(typename F::Element));  // 32: one k slice of a row
  const char* a = reinterpret_cast<const char*>(a_tile);
  const char* b = reinterpret_cast<const char*>(b_tile);
  wgmma_fence();  // the accumulators were written by other code (zeros, the last stage's group)
#pragma unroll
  for (int s = 0; s < F::kStageK / F::kStepK; ++s) {
    // A: K-major, 8-row groups 1024 bytes apart; slice s starts 32 s bytes into the rows.
    const uint64_t da = smem_descriptor(a + s * kSliceBytes, 16, 8 * kWgRowBytes);
    uint64_t db;
    if constexpr (F::kBNMajor)  // rows of k: slice s is rows 16 s .. of every 64-column box
      db = smem_descriptor(b + s * F::kStepK * kWgRowBytes, 64 * kWgRowBytes, 8 * kWgRowBytes);
    else  // B^T: K-major like A
      db = smem_descriptor(b + s * kSliceBytes, 16, 8 * kWgRowBytes);
    wgmma_async<F>(acc, da, db);
  }
  wgmma_commit();
}
#endif

}  // namespace tensor_cores::detail
