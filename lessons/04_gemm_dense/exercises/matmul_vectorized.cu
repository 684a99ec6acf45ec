// Lesson 04, step 04.5: vectorised loads, A's tile transposed in shared memory. YOUR FILE.
// Fill in the kernel here and load_tile, store_tile in tile_loads.cuh; the launcher is written.
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "matmul_launchers.hpp"
#include "tile_loads.cuh"

namespace gemm_dense {

namespace {

using namespace tiles;

// C[M x N] = op(A) * op(B) + beta * C, A and B read in their layouts. Block (blockIdx.x,
// blockIdx.y) owns the C tile at (m0, n0) = (blockIdx.y * kBM, blockIdx.x * kBN).
template <Layout kLayoutA, Layout kLayoutB, bool kVecLoads, bool kVecStore>
__global__ void __launch_bounds__(kThreads, 2)
    vectorized_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                      int K, float beta) {
  // TODO(04.5): the block's kBM x kBN tile of C, with kThreads threads, each computing a
  // kTM x kTN piece in registers: thread (tx, ty) = (t % kThreadsX, t / kThreadsX) owns rows
  // m0 + ty*4 + {0..3}, m0 + kBM/2 + ty*4 + {0..3} and columns n0 + tx*4 + {0..3},
  // n0 + kBN/2 + tx*4 + {0..3}. Stage the operands kBK deep through k-major shared tiles
  // (As[k][m], Bs[k][n]) with load_tile and store_tile; read them as float4.
  //   * Any M, N, K: edge tiles load zeros (load_tile) and store only the elements inside C.
  //   * beta == 0: C = acc, and C is never read (it may hold NaN); otherwise C = acc + beta * C.
  //   * kVecStore: float4 stores of C are allowed (N % 4 == 0 and C 16-byte aligned).
  //   * No early return: every thread reaches every __syncthreads.
}

template <Layout kLayoutA, Layout kLayoutB>
void vectorized_product(const char* what, const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  if (!detail::check_matmul_sizes(what, M, N, K)) return;
  const dim3 grid(detail::blocks_for(N, kBN), detail::blocks_for(M, kBM));
  detail::check_grid_rows(what, grid.y);
  // float4 loads need the contiguous extent of each operand to be a multiple of 4 (so a float4
  // never straddles the matrix edge or a row end) and 16-byte aligned base pointers; float4
  // stores need N % 4 == 0 and an aligned C.
  const int contiguous_a = kLayoutA == Layout::k_contiguous ? K : M;
  const int contiguous_b = kLayoutB == Layout::k_contiguous ? K : N;
  const bool vec_loads = contiguous_a % 4 == 0 && contiguous_b % 4 == 0 && detail::aligned16(A) && detail::aligned16(B);
  const bool vec_store = N % 4 == 0 && detail::aligned16(C);
  if (vec_loads && vec_store)
    vectorized_kernel<kLayoutA, kLayoutB, true, true><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  else if (vec_loads)
    vectorized_kernel<kLayoutA, kLayoutB, true, false><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  else if (vec_store)
    vectorized_kernel<kLayoutA, kLayoutB, false, true><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  else
    vectorized_kernel<kLayoutA, kLayoutB, false, false><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace detail {
void matmul_vectorized(const char* what, Layout a, Layout b, const float* A, const float* B, float* C, int M, int N,
                       int K, float beta) {
  if (a == Layout::k_contiguous && b == Layout::p_contiguous)
    vectorized_product<Layout::k_contiguous, Layout::p_contiguous>(what, A, B, C, M, N, K, beta);
  else if (a == Layout::k_contiguous && b == Layout::k_contiguous)
    vectorized_product<Layout::k_contiguous, Layout::k_contiguous>(what, A, B, C, M, N, K, beta);
  else if (a == Layout::p_contiguous && b == Layout::p_contiguous)
    vectorized_product<Layout::p_contiguous, Layout::p_contiguous>(what, A, B, C, M, N, K, beta);
  else
    throw course::Error(std::string(what) + ": A p-contiguous with B k-contiguous is not built");
}
}  // namespace detail

}  // namespace gemm_dense
