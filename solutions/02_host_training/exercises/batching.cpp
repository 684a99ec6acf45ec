// Lesson 02, step 02.3: a new, reproducible order every epoch, and minibatches gathered from it.
#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "host_training.hpp"

namespace host_training {

std::vector<int> epoch_order(int n, uint64_t seed, int epoch) {
  // Stream 0 of the seed initialises the weights; epoch e shuffles with stream 1 + e, so every
  // epoch differs and a run can be repeated exactly (the GPU trainer replays the same order).
  return course::Rng(seed, 1 + static_cast<uint64_t>(epoch)).permutation(n);
}

void gather_batch(const course::Dataset& data, const std::vector<int>& order, int first, int count, float* x,
                  int* labels) {
  if (first < 0 || count < 0 || size_t(first) + size_t(count) > order.size())
    throw course::Error("gather_batch: examples " + std::to_string(first) + " .. " + std::to_string(first + count) +
                        " are outside the order of " + std::to_string(order.size()));
  const size_t n = size_t(data.count());
  const size_t plane = n ? data.images.size() / n : 0;  // C*H*W values per example
  for (int j = 0; j < count; ++j) {
    const int k = order[size_t(first + j)];
    if (k < 0 || size_t(k) >= n) throw course::Error("gather_batch: example " + std::to_string(k) + " does not exist");
    const float* src = data.images.data() + size_t(k) * plane;
    std::copy(src, src + plane, x + size_t(j) * plane);
    labels[j] = data.labels[size_t(k)];
  }
}

}  // namespace host_training
