// Lesson 01, step 01.4: 2-D convolution backward.
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void conv2d_backward(const ConvShape& s, const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias) {
  // TODO(01.4): first set dx, dW and dbias to 0 (the caller may pass garbage), then walk the
  // same loops as conv2d_forward. Each product x[n][c][ih][iw] * W[o][c][kh][kw] that went
  // into y[n][o][oh][ow] sends back, with g = dy[n][o][oh][ow]:
  //   dx[n][c][ih][iw] += g * W[o][c][kh][kw]
  //   dW[o][c][kh][kw] += g * x[n][c][ih][iw]
  // and every output adds its g to dbias[o]. Skip the padded positions, as in the forward pass.
  (void)s; (void)x; (void)W; (void)dy; (void)dx; (void)dW; (void)dbias;  // delete with the todo line
  course::todo("01.4", "conv2d_backward");
}

template void conv2d_backward<float>(const ConvShape&, const float*, const float*, const float*, float*, float*,
                                     float*);
template void conv2d_backward<double>(const ConvShape&, const double*, const double*, const double*, double*,
                                      double*, double*);

}  // namespace host_layers
