// Lesson 02, step 02.3: a new, reproducible order every epoch, and minibatches gathered from it.
#include <algorithm>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.3): the order of epoch `epoch`: exactly course::Rng(seed, 1 + epoch).permutation(n),
// a permutation of 0..n-1 (stream 0 of the seed initialised the weights; stream 1 + e shuffles
// epoch e, so the same seed gives the same orders and every epoch a new one).
std::vector<int> epoch_order(int n, uint64_t seed, int epoch) {
  (void)n, (void)seed, (void)epoch;
  course::todo("02.3", "epoch_order");
}

// TODO(02.3): copy the examples order[first], ..., order[first + count - 1] of data, in that
// order, into x (example j's C*H*W values, NCHW, at x + j*C*H*W; C*H*W is data.images.size() /
// data.count()) and their labels into labels[j]. Write nothing past the count examples.
// Throw course::Error, before copying anything, when first < 0, count < 0 or first + count >
// order.size() (count == 0 at first == order.size() is fine); throw course::Error too when an
// entry of the order is not an example of data (k < 0 or k >= data.count()).
void gather_batch(const course::Dataset& data, const std::vector<int>& order, int first, int count, float* x,
                  int* labels) {
  (void)data, (void)order, (void)first, (void)count, (void)x, (void)labels;
  course::todo("02.3", "gather_batch");
}

}  // namespace host_training
