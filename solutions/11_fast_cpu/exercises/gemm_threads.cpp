// Lesson 11, step 11.3: the product split over threads by blocks of rows of C.
#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void gemm_threads(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C,
                  int threads) {
  check_gemm_sizes("gemm_threads", M, N, K);
  if (threads < 1) throw course::Error("gemm_threads: threads must be >= 1, got " + std::to_string(threads));
  // Work is handed out in whole register tiles of rows: every row lands in the same tile of
  // 11.2 whatever the number of threads, so it is computed by the same instructions in the same
  // order, and C is the same bit for bit.
  const int tiles = (M + kTileRows - 1) / kTileRows;
  const double flops = 2.0 * M * N * K;
  const int by_work = std::max(1, int(std::min(flops / kMinFlopsPerThread, 1e6)));
  const int used = std::max(1, std::min({threads, tiles, by_work}));
  if (used == 1) {
    gemm_simd_rows(ta, tb, M, N, K, A, B, C, 0, M);
    return;
  }
  // Thread t gets tiles [t*tiles/used, (t+1)*tiles/used): contiguous rows of C, sizes within one
  // tile of each other. The calling thread takes the last block itself.
  auto rows_of = [&](int t) { return std::min(M, int((long long)(t) * tiles / used) * kTileRows); };
  std::vector<std::exception_ptr> errors(used);
  std::vector<std::thread> pool;
  pool.reserve(used - 1);
  auto run = [&](int t) {
    try {
      gemm_simd_rows(ta, tb, M, N, K, A, B, C, rows_of(t), rows_of(t + 1));
    } catch (...) {
      errors[t] = std::current_exception();  // an exception must not leave a thread: rethrown below
    }
  };
  for (int t = 0; t + 1 < used; ++t) pool.emplace_back(run, t);
  run(used - 1);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace fast_cpu
