// Lesson 01, step 01.3: 2-D convolution forward (cross-correlation, as in every DL library).
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void conv2d_forward(const ConvShape& s, const T* x, const T* W, const T* bias, T* y) {
  // TODO(01.3): for every n, o, oh < s.out_h(), ow < s.out_w():
  //   y[n][o][oh][ow] = bias[o] + sum over c, kh, kw of x[n][c][ih][iw] * W[o][c][kh][kw]
  //   with ih = oh * stride - pad + kh and iw = ow * stride - pad + kw.
  // Skip the terms whose (ih, iw) falls outside 0..height-1 x 0..width-1 (zero padding).
  // Flat NCHW index of x[n][c][h][w]: ((n * in_channels + c) * height + h) * width + w;
  // W[o][c][kh][kw] and y[n][o][oh][ow] are laid out the same way (see the README).
  (void)s; (void)x; (void)W; (void)bias; (void)y;  // delete with the todo line
  course::todo("01.3", "conv2d_forward");
}

template void conv2d_forward<float>(const ConvShape&, const float*, const float*, const float*, float*);
template void conv2d_forward<double>(const ConvShape&, const double*, const double*, const double*, double*);

}  // namespace host_layers
