// Lesson 04, step 04.7: the transposed products backward passes need. YOUR FILE.
// Both go through the double-buffered kernel of 04.6 (detail::matmul_double_buffered in
// matmul_launchers.hpp), which reads each operand in the layout you name.
#include "course/error.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense {

using detail::Layout;

void matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  // TODO(04.7): C [M x N] = A * B^T + beta * C with A [M x K] and B [N x K], all row-major device
  // arrays, without a transposed copy: call detail::matmul_double_buffered("matmul_a_bt", ...)
  // naming the Layout in which each operand lies in memory, and pass beta on (beta == 0 never
  // reads C: it may hold NaN).
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)beta;
  course::todo("04.7", "matmul_a_bt");
}

void matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  // TODO(04.7): C [M x N] = A^T * B + beta * C with A [K x M] and B [K x N], all row-major: the
  // same call as matmul_a_bt, with this product's name ("matmul_at_b") and layouts.
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)beta;
  course::todo("04.7", "matmul_at_b");
}

}  // namespace gemm_dense
