// Lesson 10, step 10.3: keeping the Tensor Cores fed. The main loop of a pipelined GEMM: while the
// warps multiply one stage, the asynchronous copies of the next kStages - 1 stages are in flight.
// The block, the copies, the multiplies and the stores are given (pipelined_gemm.cuh).
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "pipelined_gemm.cuh"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace detail {

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

}  // namespace detail

// ---- given: checks and launches ------------------------------------------------------------------
namespace {

template <class F>
void launch_pipelined(const char* what, const typename F::Element* A, const typename F::Element* B, float* C, int M,
                      int N, int K, cudaStream_t stream) {
  if (M < 1 || N < 1 || K < 1)
    throw course::Error(std::string(what) + ": M, N and K must be >= 1, got " + std::to_string(M) + ", " +
                        std::to_string(N) + ", " + std::to_string(K));
  const std::string why = tensor_core_problem();
  if (!why.empty()) throw course::Error(std::string(what) + ": " + why);
  using S = detail::PipeShape<F>;
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const bool async_a = K % S::kVec == 0 && aligned(A), async_b = N % S::kVec == 0 && aligned(B);
  const auto kernel = detail::gemm_pipelined_kernel<F>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(S::kSmemBytes)));
  const dim3 grid(unsigned((N + detail::kTileN - 1) / detail::kTileN), unsigned((M + detail::kTileM - 1) / detail::kTileM));
  kernel<<<grid, detail::kPipeThreads, S::kSmemBytes, stream>>>(A, B, C, M, N, K, async_a, async_b);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void gemm_pipelined_tf32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  launch_pipelined<detail::Tf32>("gemm_pipelined_tf32", A, B, C, M, N, K, stream);
}

void gemm_pipelined_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream) {
  launch_pipelined<detail::Bf16>("gemm_pipelined_bf16", reinterpret_cast<const __nv_bfloat16*>(A),
                                 reinterpret_cast<const __nv_bfloat16*>(B), C, M, N, K, stream);
}

}  // namespace tensor_cores
