// Lesson 10 (given): step 10.2's GEMM: the checks and the launches of the kernel in wmma_gemm.cuh,
// whose warps run your warp_tile_mma (exercises/warp_tile_mma.cuh).
#include "course/cuda_check.hpp"
#include <exercises/warp_tile_mma.cuh>  // <>: this build's copy (solutions/ or yours), never a neighbour's
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"
#include "wmma_gemm.cuh"

namespace tensor_cores {

namespace {

template <class F>
void launch(const typename F::Element* A, const typename F::Element* B, float* C, int M, int N, int K,
            cudaStream_t stream) {
  const dim3 grid(unsigned((N + detail::kBlockN - 1) / detail::kBlockN), unsigned((M + detail::kBlockM - 1) / detail::kBlockM));
  detail::gemm_wmma_kernel<F><<<grid, detail::kThreads, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void gemm_wmma_tf32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  detail::check_tensor_core_gemm("gemm_wmma_tf32", M, N, K);
  launch<detail::Tf32>(A, B, C, M, N, K, stream);
}

void gemm_wmma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream) {
  detail::check_tensor_core_gemm("gemm_wmma_bf16", M, N, K);
  launch<detail::Bf16>(reinterpret_cast<const __nv_bfloat16*>(A), reinterpret_cast<const __nv_bfloat16*>(B), C, M,
                       N, K, stream);
}

}  // namespace tensor_cores
