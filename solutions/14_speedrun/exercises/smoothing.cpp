// Lesson 14, step 14.2: softmax-cross-entropy with label smoothing on the CPU.
#include <cmath>
#include <limits>

#include "speedrun.hpp"

namespace speedrun {

void smoothed_cross_entropy(const float* logits, const int* labels, float* row_loss, float* dlogits, int batch,
                            int classes, float smoothing) {
  check_smoothing("smoothed_cross_entropy", batch, classes, smoothing);
  const float true_weight = 1.0f - smoothing;  // the target's extra share at the true class
  const float uniform = smoothing / float(classes);  // every class's share of the smoothing
  for (int b = 0; b < batch; ++b) {
    const float* z = logits + size_t(b) * classes;
    float* dz = dlogits + size_t(b) * classes;
    const int label = labels[b];
    if (label < 0 || label >= classes) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      row_loss[b] = nan;
      for (int k = 0; k < classes; ++k) dz[k] = nan;
      continue;
    }
    float m = z[0];
    for (int k = 1; k < classes; ++k) m = std::fmax(m, z[k]);
    // Everything relative to the maximum: exp never overflows, and the loss is a sum of small
    // differences instead of a difference of large logits.
    float sum_exp = 0.0f, sum_shifted = 0.0f;
    for (int k = 0; k < classes; ++k) {
      sum_exp += std::exp(z[k] - m);
      sum_shifted += z[k] - m;
    }
    const float log_sum = std::log(sum_exp);
    row_loss[b] = log_sum - true_weight * (z[label] - m) - uniform * sum_shifted;
    for (int k = 0; k < classes; ++k) {
      const float p = std::exp(z[k] - m) / sum_exp;
      const float target = (k == label ? true_weight : 0.0f) + uniform;
      dz[k] = (p - target) / float(batch);
    }
  }
}

}  // namespace speedrun
