// Lesson 11, step 11.7: the batch cut into shards, one thread each, the gradients summed in order.
#include <algorithm>
#include <string>
#include <vector>

#include "course/arithmetic.hpp"
#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

double run_shards(int batch, int shards, int threads, const std::function<double(int shard, int begin, int end)>& pass) {
  if (batch < 1) throw course::Error("run_shards: batch must be >= 1, got " + std::to_string(batch));
  if (shards < 1 || shards > batch)
    throw course::Error("run_shards: shards must be in [1, batch = " + std::to_string(batch) + "], got " +
                        std::to_string(shards));
  if (threads < 1) throw course::Error("run_shards: threads must be >= 1, got " + std::to_string(threads));
  auto first_of = [&](int k) { return int(int64_t(k) * batch / shards); };
  // Each result in its own slot, added after every shard is done: the order of the sum is the
  // shards' order, not the order in which the threads finished.
  std::vector<double> results(size_t(shards), 0.0);
  parallel_ranges(threads, shards, double(shards) * kMinFlopsPerThread, [&](int first, int last) {
    for (int k = first; k < last; ++k) results[size_t(k)] = pass(k, first_of(k), first_of(k + 1));
  });
  double total = 0.0;
  for (double r : results) total += r;
  return total;
}

void sum_in_order(const std::vector<const float*>& parts, size_t count, float* sum, int threads) {
  if (parts.empty()) throw course::Error("sum_in_order: no parts to add");
  if (threads < 1) throw course::Error("sum_in_order: threads must be >= 1, got " + std::to_string(threads));
  // Blocks of elements small enough for L1: the first part is copied, then each further part is
  // added along the block (a contiguous loop, vectorised), so every element is still added in part
  // order. parallel_ranges counts blocks (an int) whatever the size of count, and gets work worth
  // one thread for every kMinElementsPerThread elements.
  constexpr size_t kBlock = 2048;
  const size_t blocks = course::ceil_div(count, kBlock);
  if (blocks > size_t(1) << 30) throw course::Error("sum_in_order: count " + std::to_string(count) + " is too large");
  parallel_ranges(threads, int(blocks), double(count / kMinElementsPerThread) * kMinFlopsPerThread, [&](int first, int last) {
    for (size_t b = size_t(first); b < size_t(last); ++b) {
      const size_t begin = b * kBlock, end = std::min(count, begin + kBlock);
      if (sum != parts[0]) std::copy(parts[0] + begin, parts[0] + end, sum + begin);
      for (size_t k = 1; k < parts.size(); ++k) {
        const float* part = parts[k];
        for (size_t i = begin; i < end; ++i) sum[i] += part[i];
      }
    }
  });
}

}  // namespace fast_cpu
