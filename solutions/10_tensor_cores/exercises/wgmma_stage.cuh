#pragma once
// Lesson 10, step 10.8: the Hopper GEMM's pipeline: the producer's copies, the consumers' products,
// the stages' barriers between them (solution).
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

template <class F>
__device__ __forceinline__ void produce_stages(const StageRing<F>& ring, const void* a_map, const void* b_map, int m0,
                                               int n0, int k_tiles) {
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kWgStages, round = kt / kWgStages;
    if (round > 0) barrier_wait(&ring.empty[s], (round - 1) & 1);  // both consumers are done with it
    barrier_arrive_expect(&ring.full[s], kWgStageBytes);
    copy_stage(ring, s, a_map, b_map, kt, m0, n0);
  }
}

template <class F>
__device__ __forceinline__ void consume_stages(const StageRing<F>& ring, int row_offset, int k_tiles,
                                               float (&acc)[kWgAccumulators]) {
  // Stage kt's group runs while the next stage's barrier is awaited.
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kWgStages;
    barrier_wait(&ring.full[s], (kt / kWgStages) & 1);
    issue_stage_mma<F>(ring.a(s) + row_offset * F::kStageK, ring.b(s), acc);
    wgmma_wait<1>();  // stage kt - 1's group is finished: its buffer may be refilled
    if (kt > 0 && threadIdx.x % 128 == 0) barrier_arrive(&ring.empty[(kt - 1) % kWgStages]);
  }
  wgmma_wait<0>();
}
#endif

}  // namespace tensor_cores::detail
