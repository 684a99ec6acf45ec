// Lesson 01, step 01.5: softmax + cross-entropy, numerically stable.
#include <algorithm>
#include <cmath>

#include "host_layers.hpp"

namespace host_layers {

template <typename T>
T softmax_cross_entropy_forward(const T* logits, const int* labels, T* probs, int batch, int classes) {
  double total = 0.0;
  for (int b = 0; b < batch; ++b) {
    const T* z = logits + size_t(b) * classes;
    T* p = probs + size_t(b) * classes;
    T peak = z[0];
    for (int k = 1; k < classes; ++k) peak = std::max(peak, z[k]);
    // exp(z - max) <= 1: no overflow; log-sum-exp gives the loss without log(0).
    T sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(z[k] - peak);
    for (int k = 0; k < classes; ++k) p[k] = std::exp(z[k] - peak) / sum;
    total += static_cast<double>(std::log(sum) - (z[labels[b]] - peak));
  }
  return static_cast<T>(total / batch);
}

template <typename T>
void softmax_cross_entropy_backward(const T* probs, const int* labels, T* dlogits, int batch, int classes) {
  const T scale = T(1) / T(batch);
  for (int b = 0; b < batch; ++b)
    for (int k = 0; k < classes; ++k) {
      const size_t i = size_t(b) * classes + k;
      dlogits[i] = (probs[i] - (k == labels[b] ? T(1) : T(0))) * scale;
    }
}

template float softmax_cross_entropy_forward<float>(const float*, const int*, float*, int, int);
template double softmax_cross_entropy_forward<double>(const double*, const int*, double*, int, int);
template void softmax_cross_entropy_backward<float>(const float*, const int*, float*, int, int);
template void softmax_cross_entropy_backward<double>(const double*, const int*, double*, int, int);

}  // namespace host_layers
