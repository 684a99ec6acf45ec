// Lesson 10 (given): the launches of 10.3's pipelined GEMMs; their main loop is yours
// (exercises/pipeline_loop.cuh).
#include "course/cuda_check.hpp"
#include "gemm_checks.hpp"
#include <exercises/pipeline_loop.cuh>  // <>: this build's copy (solutions/ or yours), never a neighbour's
#include <exercises/warp_tile_mma.cuh>  // 10.2: the warps' multiplies
#include "pipelined_gemm.cuh"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace {

template <class F>
void launch_pipelined(const char* what, const typename F::Element* A, const typename F::Element* B, float* C, int M,
                      int N, int K, cudaStream_t stream) {
  detail::check_tensor_core_gemm(what, M, N, K);
  using S = detail::PipeShape<F>;
  constexpr int bytes = int(sizeof(typename F::Element));
  const bool async_a = detail::rows_16_byte_aligned(A, K, bytes), async_b = detail::rows_16_byte_aligned(B, N, bytes);
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
