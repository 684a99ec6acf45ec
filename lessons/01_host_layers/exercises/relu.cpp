// Lesson 01, step 01.1: ReLU forward and backward, elementwise over n values.
#include <cstddef>

#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void relu_forward(const T* x, T* y, size_t n) {
  // TODO(01.1): for every i < n: y[i] = x[i] if x[i] > 0, else 0.
  (void)x; (void)y; (void)n;  // delete with the todo line
  course::todo("01.1", "relu_forward");
}

template <typename T>
void relu_backward(const T* x, const T* dy, T* dx, size_t n) {
  // TODO(01.1): for every i < n: dx[i] = dy[i] if x[i] > 0, else 0. x is the forward pass's
  // INPUT; at exactly x == 0 (and -0.0) the gradient is 0.
  (void)x; (void)dy; (void)dx; (void)n;  // delete with the todo line
  course::todo("01.1", "relu_backward");
}

template void relu_forward<float>(const float*, float*, size_t);
template void relu_forward<double>(const double*, double*, size_t);
template void relu_backward<float>(const float*, const float*, float*, size_t);
template void relu_backward<double>(const double*, const double*, double*, size_t);

}  // namespace host_layers
