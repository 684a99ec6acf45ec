// Lesson 01, step 01.3: 2-D convolution backward.
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void conv2d_backward(const ConvShape& s, const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias) {
  // TODO(01.3): given dy = dL/dy of conv2d_forward with the same shape s, x and W, write the
  // three gradients dx = dL/dx, dW = dL/dW and dbias = dL/dbias (layouts as x, W and bias).
  // The caller may pass garbage in all three: every element must be set, so set them to 0
  // before you add anything into them. Padded positions (outside the image) have no
  // gradient: never read or write x or dx there.
  (void)s; (void)x; (void)W; (void)dy; (void)dx; (void)dW; (void)dbias;  // delete with the todo line
  course::todo("01.3", "conv2d_backward");
}

template void conv2d_backward<float>(const ConvShape&, const float*, const float*, const float*, float*, float*,
                                     float*);
template void conv2d_backward<double>(const ConvShape&, const double*, const double*, const double*, double*,
                                      double*, double*);

}  // namespace host_layers
