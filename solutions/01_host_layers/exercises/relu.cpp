// Lesson 01, step 01.1: ReLU forward and backward.
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void relu_forward(const T* x, T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : T(0);
}

template <typename T>
void relu_backward(const T* x, const T* dy, T* dx, size_t n) {
  for (size_t i = 0; i < n; ++i) dx[i] = x[i] > T(0) ? dy[i] : T(0);
}

template void relu_forward<float>(const float*, float*, size_t);
template void relu_forward<double>(const double*, double*, size_t);
template void relu_backward<float>(const float*, const float*, float*, size_t);
template void relu_backward<double>(const double*, const double*, double*, size_t);

}  // namespace host_layers
