#pragma once
// Lesson 04, internal: the launchers of the three matmul rungs (one per exercise file),
// which gemm_dense::matmul (matmul.cpp) dispatches to, and the argument check they share.
// Not part of the public API: use gemm_dense.hpp.
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

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K);            // 04.1
void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K);            // 04.2
void matmul_register_blocked(const float* A, const float* B, float* C, int M, int N, int K); // 04.3

}  // namespace gemm_dense::detail
