#pragma once
// Lesson 10, step 10.8: the Hopper GEMM's pipeline. One producer thread keeps the copy engine
// filling kWgStages stages ahead; two consumer warpgroups multiply each stage with wgmma straight
// from shared memory; the stages' barriers (StageRing in wgmma_gemm.cuh) say who may go on. YOUR
// FILE: produce_stages, consume_stages and issue_stage_mma (marked TODO). A header: it is compiled
// into the sm_90a part of the lesson (gemm_wgmma.cu), which makes the barriers, gives the
// warpgroups their roles and stores the accumulators.
#include "wgmma_gemm.cuh"

namespace tensor_cores::detail {

#if COURSE_WGMMA
// One warpgroup's products of one stage, as ONE group, without waiting: acc += a_tile (its 64 rows
// of A's stage) x b_tile (B's whole stage), F::kStageK / F::kStepK wgmmas.
template <class F>
__device__ __forceinline__ void issue_stage_mma(const typename F::Element* a_tile, const typename F::Element* b_tile,
                                                float (&acc)[kWgAccumulators]) {
  // TODO(10.8): fence the accumulators; one wgmma_async<F> per k slice, each with a descriptor of
  // A's slice (K-major) and of B's (N-major for BF16, F::kBNMajor; K-major B^T for TF32): starts
  // and byte offsets as smem_descriptor's comment says; then close the group.
  (void)a_tile, (void)b_tile, (void)acc;
}

// The producer (one thread): every k tile 0 .. k_tiles-1 copied into its stage (copy_stage), each
// stage refilled only once both consumers gave it back.
template <class F>
__device__ __forceinline__ void produce_stages(const StageRing<F>& ring, const void* a_map, const void* b_map, int m0,
                                               int n0, int k_tiles) {
  // TODO(10.8): per k tile: its stage and round; from the second round on wait on the stage's
  // `empty` barrier (the round before's parity); arrive on its `full` barrier expecting the stage's
  // bytes, then copy.
  (void)ring, (void)a_map, (void)b_map, (void)m0, (void)n0, (void)k_tiles;
}

// A consumer warpgroup (all its 128 threads): every k tile's stage multiplied into acc once its
// copies have landed, each stage given back once its products are done; returns with every
// product finished.
template <class F>
__device__ __forceinline__ void consume_stages(const StageRing<F>& ring, int row_offset, int k_tiles,
                                               float (&acc)[kWgAccumulators]) {
  // TODO(10.8): per k tile: wait on its stage's `full` barrier; issue the stage's products (A's
  // rows from row_offset on); let at most one group run on, and give the stage the finished group
  // used back (one thread of the warpgroup arrives); after the loop, wait for every group.
  (void)ring, (void)row_offset, (void)k_tiles, (void)acc;
}
#endif

}  // namespace tensor_cores::detail
