// Lesson 11, step 11.3: the product split over threads by blocks of rows of C.
#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void gemm_threads(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C,
                  int threads) {
  check_gemm_sizes("gemm_threads", M, N, K);
  if (threads < 1) throw course::Error("gemm_threads: threads must be >= 1, got " + std::to_string(threads));
  // Work is handed out in whole register tiles of rows: every row lands in the same tile of
  // 11.2 whatever the number of threads, so it is computed by the same instructions in the same
  // order, and C is the same bit for bit. parallel_ranges cuts the tiles into contiguous blocks
  // (sizes within one tile of each other), at most one a kMinFlopsPerThread of work.
  const int tiles = (M + kTileRows - 1) / kTileRows;
  parallel_ranges(threads, tiles, 2.0 * M * N * K, [&](int first_tile, int end_tile) {
    gemm_simd_rows(ta, tb, M, N, K, A, B, C, std::min(M, first_tile * kTileRows), std::min(M, end_tile * kTileRows));
  });
}

}  // namespace fast_cpu
