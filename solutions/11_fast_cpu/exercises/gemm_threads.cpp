// Lesson 11, step 11.3: work cut into ranges for the pool's threads (as many as the work is worth),
// and the product split over them by blocks of rows of C.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void parallel_ranges(int threads, int count, double flops, const std::function<void(int begin, int end)>& body) {
  if (threads < 1) throw course::Error("parallel_ranges: threads must be >= 1, got " + std::to_string(threads));
  if (count <= 0) return;
  // At most one range for each kMinFlopsPerThread of work (capped before the cast), at least one.
  const int by_work = std::max(1, int(std::min(flops / kMinFlopsPerThread, 1e6)));
  const int used = std::min({threads, count, by_work});
  auto begin_of = [&](int t) { return int(int64_t(t) * count / used); };
  run_on_pool(used, [&](int t) { body(begin_of(t), begin_of(t + 1)); });
}

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
