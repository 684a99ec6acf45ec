// Lesson 04, step 04.7: the transposed products backward passes need, through the
// double-buffered kernel of 04.6. No transposed copy is made: the loaders read each operand in
// the order it lies in memory.
#include "matmul_launchers.hpp"

namespace gemm_dense {

using detail::Layout;

// A [M x K] is k-contiguous; B [N x K] holds column n of B^T as its row n: k-contiguous too.
void matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  detail::matmul_double_buffered("matmul_a_bt", Layout::k_contiguous, Layout::k_contiguous, A, B, C, M, N, K, beta);
}

// A [K x M] holds row m of A^T as its column m: p-contiguous; B [K x N] as in A*B.
void matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  detail::matmul_double_buffered("matmul_at_b", Layout::p_contiguous, Layout::p_contiguous, A, B, C, M, N, K, beta);
}

}  // namespace gemm_dense
