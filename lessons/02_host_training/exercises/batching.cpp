// Lesson 02, step 02.4: a new, reproducible order every epoch, and minibatches gathered from it.
#include <algorithm>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.4): return course::Rng(seed, 1 + epoch).permutation(n).
// (Stream 0 of the seed initialised the weights; stream 1 + e shuffles epoch e.)
std::vector<int> epoch_order(int n, uint64_t seed, int epoch) {
  (void)n, (void)seed, (void)epoch;
  course::todo("02.4", "epoch_order");
}

// TODO(02.4): for j in 0..count-1, with k = order[first + j]:
//     copy example k's C*H*W values (data.images, NCHW) to x + j*C*H*W, and labels[j] = data.labels[k].
// C*H*W is data.images.size() / data.count(). Write nothing past the count examples.
// Throw course::Error, before copying anything, when first < 0, count < 0 or first + count >
// order.size() (count == 0 at first == order.size() is fine); throw course::Error too when a k
// is not an example of data (k < 0 or k >= data.count()).
void gather_batch(const course::Dataset& data, const std::vector<int>& order, int first, int count, float* x,
                  int* labels) {
  (void)data, (void)order, (void)first, (void)count, (void)x, (void)labels;
  course::todo("02.4", "gather_batch");
}

}  // namespace host_training
