#pragma once
// Lesson 04, internal: the launchers of the matmul rungs (one per exercise file), which
// gemm_dense::matmul (matmul.cpp), the transposed products, the tests and the program call, and
// the argument checks they share. Not part of the public API: use gemm_dense.hpp.
#include <cstdint>

#include "gemm_dense.hpp"

namespace gemm_dense::detail {

// Throws course::Error naming `what` when a size is negative or the grid would be too large.
// Returns false when there is nothing to compute (M == 0 or N == 0): launch nothing then.
bool check_matmul_sizes(const char* what, int M, int N, int K);

// Blocks needed to cover n items with `per_block` items per block (n >= 0).
inline unsigned blocks_for(int n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

// The largest gridDim.y: launchers put output rows in y and throw (via check_grid_rows)
// beyond it rather than launch an invalid grid.
constexpr unsigned kMaxGridY = 65535;
void check_grid_rows(const char* what, unsigned blocks_y);

// float4 loads and stores need 16-byte aligned addresses.
inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// C[M x N] = A[M x K] * B[K x N], all row-major: the rungs that compute A*B only.
void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K);    // 04.1
void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K);    // 04.2
void matmul_1d_tile(const float* A, const float* B, float* C, int M, int N, int K);  // 04.3
void matmul_2d_tile(const float* A, const float* B, float* C, int M, int N, int K);  // 04.4

// How an operand lies in memory. Seen from the product, operand A holds elements (m, k)
// (P = M) and operand B elements (n, k) (P = N); each is stored in one of two ways:
enum class Layout {
  k_contiguous,  // element (p, k) at X[p * K + k]: A of A*B
  p_contiguous,  // element (p, k) at X[k * P + p]: B of A*B
};

// C[M x N] = op(A) * op(B) + beta * C, each operand read in its layout; beta == 0 never reads C.
// The rungs 04.5 and 04.6 are templates on the two layouts; these pick the instantiation at run
// time (A p-contiguous with B k-contiguous is not needed by any product and throws). `what`
// names the product in error messages.
void matmul_vectorized(const char* what, Layout a, Layout b, const float* A, const float* B, float* C, int M, int N,
                       int K, float beta);  // 04.5
// split_k false: one slice however few the output tiles (the program's column that shows what
// split-K earns); true: the launcher's choice, as every product of the course runs.
void matmul_double_buffered(const char* what, Layout a, Layout b, const float* A, const float* B, float* C, int M,
                            int N, int K, float beta, bool split_k = true);  // 04.6: the production kernel

}  // namespace gemm_dense::detail
