// Lesson 11, step 11.7: the batch cut into shards, one thread each, the gradients summed in order.
// YOUR FILE. Uncomment the parameter names when you write the functions.
#include <string>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

double run_shards(int /*batch*/, int /*shards*/, int /*threads*/,
                  const std::function<double(int shard, int begin, int end)>& /*pass*/) {
  // TODO(11.7): check the arguments (course::Error); cut [0, batch) into the shards of fast_cpu.hpp;
  // run pass(k, begin, end) for every shard on the pool (parallel_ranges), keep each result, and
  // return their sum in shard order.
  course::todo("11.7", "run_shards (every shard's pass on the pool's threads)");
}

void sum_in_order(const std::vector<const float*>& /*parts*/, size_t /*count*/, float* /*sum*/, int /*threads*/) {
  // TODO(11.7): sum[i] = parts[0][i] + parts[1][i] + ..., the elements split over threads (a thread
  // for every kMinElementsPerThread elements at most).
  course::todo("11.7", "sum_in_order (the shards' gradients added in shard order)");
}

}  // namespace fast_cpu
