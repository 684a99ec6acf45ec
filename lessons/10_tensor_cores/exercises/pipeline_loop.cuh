#pragma once
// Lesson 10, step 10.3: keeping the Tensor Cores fed. The main loop of a pipelined GEMM: while the
// warps multiply one stage, the asynchronous copies of the next kStages - 1 stages are in flight.
// YOUR FILE: run_pipeline (marked TODO). A header, because 10.3's and 10.4's GEMMs both run it.
// The block, the copies, the multiplies and the stores are given (pipelined_gemm.cuh, mma_gemm.cuh).
#include "pipelined_gemm.cuh"

namespace tensor_cores::detail {

#if COURSE_WMMA  // (compiled only for GPUs with TF32 and BF16 Tensor Cores: see wmma_gemm.cuh)
template <class P>
__device__ void run_pipeline(const P& p, int k_tiles) {
  // TODO(10.3): first put the tiles 0 .. P::kStages - 2 on their way: p.load(buffer, tile) for each
  // that exists, then p.commit() (one group per tile, even past the last one). Then for each tile
  // t: wait until it has landed (p.template wait<P::kStages - 2>(), then p.sync() so that every
  // thread's copies have), multiply it (p.compute(t % P::kStages)), and send the tile
  // t + P::kStages - 1 into the buffer tile t - 1 used (if it exists), then p.commit().
  (void)p, (void)k_tiles;
}
#endif

}  // namespace tensor_cores::detail
