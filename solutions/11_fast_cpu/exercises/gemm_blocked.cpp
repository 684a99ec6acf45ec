// Lesson 11, step 11.1: the i-k-j loop order and cache blocking.
#include <algorithm>
#include <vector>

#include "fast_cpu.hpp"

namespace fast_cpu {

namespace {

// A block of op(B) is kBlockK x kBlockN floats = 128 x 512 x 4 bytes = 256 KiB: it fits the L2
// cache of any x86 core of the last decade (256 KiB to 2 MiB), so every row of C that uses it
// reads it from L2, not from memory. The innermost loop touches one row of the C block and one
// row of the B block, 2 x 512 x 4 = 4 KiB: both stay in L1 (32-48 KiB) across the k loop.
constexpr int kBlockK = 128;
constexpr int kBlockN = 512;

}  // namespace

void gemm_blocked(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C) {
  check_gemm_sizes("gemm_blocked", M, N, K);
  if (M == 0 || N == 0) return;
  if (K == 0) {  // an empty sum
    std::fill(C, C + size_t(M) * N, 0.0f);
    return;
  }
  // op(A)(i, k) and op(B)(k, j) through strides: the transposes cost nothing but a stride.
  const size_t a_row = ta == Trans::no ? size_t(K) : 1, a_col = ta == Trans::no ? 1 : size_t(M);
  const size_t b_row = tb == Trans::no ? size_t(N) : 1, b_col = tb == Trans::no ? 1 : size_t(K);
  std::vector<float> block(size_t(kBlockK) * kBlockN);
  for (int j0 = 0; j0 < N; j0 += kBlockN) {
    const int nb = std::min(kBlockN, N - j0);
    for (int k0 = 0; k0 < K; k0 += kBlockK) {
      const int kb = std::min(kBlockK, K - k0);
      // Copy the block of op(B) into contiguous rows of nb floats (this also undoes a transpose).
      for (int kk = 0; kk < kb; ++kk)
        for (int jj = 0; jj < nb; ++jj) block[size_t(kk) * nb + jj] = B[(k0 + kk) * b_row + (j0 + jj) * b_col];
      for (int i = 0; i < M; ++i) {
        float* c = C + size_t(i) * N + j0;
        if (k0 == 0) std::fill(c, c + nb, 0.0f);
        // i-k-j: for each a(i, k), add a(i, k) times row k of the block to row i of C. Each
        // c[jj] is its own sum, added in the order k = 0, 1, ...: no reduction in this loop.
        for (int kk = 0; kk < kb; ++kk) {
          const float a = A[i * a_row + (k0 + kk) * a_col];
          const float* b = block.data() + size_t(kk) * nb;
          for (int jj = 0; jj < nb; ++jj) c[jj] += a * b[jj];
        }
      }
    }
  }
}

}  // namespace fast_cpu
