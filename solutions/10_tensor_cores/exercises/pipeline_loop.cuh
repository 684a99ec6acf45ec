#pragma once
// Lesson 10, step 10.3: keeping the Tensor Cores fed. The main loop of a pipelined GEMM: while the
// warps multiply one stage, the asynchronous copies of the next kStages - 1 stages are in flight.
// A header, because 10.3's and 10.4's GEMMs both run it. The block, the copies, the multiplies and
// the stores are given (pipelined_gemm.cuh, mma_gemm.cuh).
#include "pipelined_gemm.cuh"

namespace tensor_cores::detail {

#if COURSE_WMMA  // (compiled only for GPUs with TF32 and BF16 Tensor Cores: see wmma_gemm.cuh)
template <class P>
__device__ void run_pipeline(const P& p, int k_tiles) {
  // Fill the pipe: the first kStages - 1 tiles on their way (one group each, even when empty, so
  // that "at most n groups in flight" counts tiles).
  for (int s = 0; s < P::kStages - 1; ++s) {
    if (s < k_tiles) p.load(s, s);
    p.commit();
  }
  for (int t = 0; t < k_tiles; ++t) {
    p.template wait<P::kStages - 2>();  // tile t has landed (for this thread's copies) ...
    p.sync();                           // ... and for every thread's; and tile t - 1's buffer is free
    p.compute(t % P::kStages);
    const int next = t + P::kStages - 1;  // into the buffer tile t - 1 used
    if (next < k_tiles) p.load(next % P::kStages, next);
    p.commit();
  }
}
#endif

}  // namespace tensor_cores::detail
