// Lesson 11, step 11.2: a register tile of C that g++ -O3 turns into SIMD instructions.
#include <algorithm>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

namespace {

// Columns of the register tile: two SIMD registers per row for the widest vectors the compiler
// may use (8 floats with the default SSE2, 16 with AVX2, 32 with AVX-512 under -march=native).
// kTileRows x kTileCols accumulators then take 12 registers of the 16 (SSE2, AVX2) or 32
// (AVX-512), leaving room for two vectors of B and the broadcast value of A.
#if defined(__AVX512F__)
constexpr int kTileCols = 32;
#elif defined(__AVX__)
constexpr int kTileCols = 16;
#else
constexpr int kTileCols = 8;
#endif
// kBlockK: a packed panel of op(A) (kTileRows x 256 floats, 6 KiB) and one of op(B) (256 x
// kTileCols floats, 8-32 KiB) are what the tile loop reads: together they stay in L1.
// kBlockN: the packed block of op(B), 256 x 256 floats = 256 KiB, stays in L2 while every
// row tile of C passes over it.
constexpr int kBlockK = 256;
constexpr int kBlockN = 256;

// acc [kTileRows x kTileCols] += a_panel [kb x kTileRows] (column k holds the tile's rows) times
// b_panel [kb x kTileCols]. Fixed sizes, no aliasing (__restrict__), the innermost loop along
// contiguous columns: after unrolling, every row of acc lives in registers and the j loop is a
// few vector multiply-adds. Each acc[r][j] is still summed over k in order: nothing reassociated.
inline void tile_kernel(int kb, const float* __restrict__ a_panel, const float* __restrict__ b_panel,
                        float (&acc)[kTileRows][kTileCols]) {
  float sum[kTileRows][kTileCols];
  for (int r = 0; r < kTileRows; ++r)
    for (int j = 0; j < kTileCols; ++j) sum[r][j] = acc[r][j];
  for (int k = 0; k < kb; ++k) {
    const float* __restrict__ a = a_panel + k * kTileRows;
    const float* __restrict__ b = b_panel + k * kTileCols;
#pragma GCC unroll 8
    for (int r = 0; r < kTileRows; ++r)
#pragma GCC unroll 32
      for (int j = 0; j < kTileCols; ++j) sum[r][j] += a[r] * b[j];
  }
  for (int r = 0; r < kTileRows; ++r)
    for (int j = 0; j < kTileCols; ++j) acc[r][j] = sum[r][j];
}

}  // namespace

void gemm_simd_rows(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C,
                    int row_begin, int row_end) {
  check_gemm_sizes("gemm_simd_rows", M, N, K);
  if (row_begin < 0 || row_end < row_begin || row_end > M || row_begin % kTileRows != 0)
    throw course::Error("gemm_simd_rows: need 0 <= row_begin <= row_end <= M and row_begin a multiple of " +
                        std::to_string(kTileRows) + ", got rows [" + std::to_string(row_begin) + ", " +
                        std::to_string(row_end) + ") of M=" + std::to_string(M));
  if (row_begin == row_end || N == 0) return;
  if (K == 0) {
    std::fill(C + size_t(row_begin) * N, C + size_t(row_end) * N, 0.0f);
    return;
  }
  const size_t a_row = ta == Trans::no ? size_t(K) : 1, a_col = ta == Trans::no ? 1 : size_t(M);
  const size_t b_row = tb == Trans::no ? size_t(N) : 1, b_col = tb == Trans::no ? 1 : size_t(K);
  const int panels_max = (kBlockN + kTileCols - 1) / kTileCols;
  // The packing buffers live as long as the thread: a fresh 256 KiB vector per call would cost a
  // page fault per 4 KiB and zeroing, more than a small product's arithmetic. Every float the tile
  // loop reads is written by the packing below first.
  thread_local std::vector<float> b_block, a_panel;
  b_block.resize(size_t(panels_max) * kBlockK * kTileCols);
  a_panel.resize(size_t(kBlockK) * kTileRows);
  for (int j0 = 0; j0 < N; j0 += kBlockN) {
    const int nb = std::min(kBlockN, N - j0), panels = (nb + kTileCols - 1) / kTileCols;
    for (int k0 = 0; k0 < K; k0 += kBlockK) {
      const int kb = std::min(kBlockK, K - k0);
      // Pack the block of op(B) as panels of kTileCols columns, each kb x kTileCols contiguous;
      // columns past N are 0, so the tile kernel never needs a bounds test.
      // The loop runs along whichever way op(B) is contiguous in memory: rows of B (tb == no),
      // or rows of B^T's storage (tb == yes); the writes land in the small panel either way.
      for (int p = 0; p < panels; ++p) {
        float* panel = b_block.data() + size_t(p) * kb * kTileCols;
        if (tb == Trans::no) {
          for (int k = 0; k < kb; ++k)
            for (int j = 0; j < kTileCols; ++j) {
              const int col = j0 + p * kTileCols + j;
              panel[size_t(k) * kTileCols + j] = col < N ? B[(k0 + k) * b_row + col] : 0.0f;
            }
        } else {
          for (int j = 0; j < kTileCols; ++j) {
            const int col = j0 + p * kTileCols + j;
            for (int k = 0; k < kb; ++k)
              panel[size_t(k) * kTileCols + j] = col < N ? B[(k0 + k) + col * b_col] : 0.0f;
          }
        }
      }
      for (int i0 = row_begin; i0 < row_end; i0 += kTileRows) {
        const int rows = std::min(kTileRows, row_end - i0);
        // Pack the tile's rows of op(A): column k of the panel holds a(i0 .. i0+5, k0 + k);
        // rows past row_end are 0.
        for (int k = 0; k < kb; ++k)
          for (int r = 0; r < kTileRows; ++r)
            a_panel[size_t(k) * kTileRows + r] = r < rows ? A[(i0 + r) * a_row + (k0 + k) * a_col] : 0.0f;
        for (int p = 0; p < panels; ++p) {
          const int cols = std::min(kTileCols, nb - p * kTileCols);
          float* c = C + size_t(i0) * N + j0 + p * kTileCols;
          // The tile starts from what the earlier K blocks summed (0 for the first): C's element
          // is then summed over k = 0, 1, ... in order, the blocks do not change the order.
          float acc[kTileRows][kTileCols];
          for (int r = 0; r < kTileRows; ++r)
            for (int j = 0; j < kTileCols; ++j)
              acc[r][j] = (k0 == 0 || r >= rows || j >= cols) ? 0.0f : c[size_t(r) * N + j];
          tile_kernel(kb, a_panel.data(), b_block.data() + size_t(p) * kb * kTileCols, acc);
          for (int r = 0; r < rows; ++r)
            for (int j = 0; j < cols; ++j) c[size_t(r) * N + j] = acc[r][j];
        }
      }
    }
  }
}

}  // namespace fast_cpu
