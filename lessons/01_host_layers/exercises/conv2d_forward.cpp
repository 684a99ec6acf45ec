// Lesson 01, step 01.2: 2-D convolution forward (cross-correlation, as in every DL library).
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void conv2d_forward(const ConvShape& s, const T* x, const T* W, const T* bias, T* y) {
  // TODO(01.2): y = bias + the cross-correlation (no kernel flip) of x with W, at stride
  // s.stride with s.pad rows and columns of zero padding on every side:
  //   y[n][o][oh][ow] = bias[o] + sum over c, kh, kw of x[n][c][ih][iw] * W[o][c][kh][kw]
  //   with ih = oh * stride - pad + kh and iw = ow * stride - pad + kw,
  // for every n, o, oh < s.out_h(), ow < s.out_w(). A tap whose (ih, iw) lies outside the
  // image adds nothing (padding is not stored: never read x there). Write every element of y.
  // Layouts, all NCHW: x [batch, in_channels, height, width], W [out_channels, in_channels,
  // kernel_h, kernel_w], bias [out_channels], y [batch, out_channels, out_h, out_w]; the flat
  // index of x[n][c][h][w] is ((n * in_channels + c) * height + h) * width + w (see the README).
  (void)s; (void)x; (void)W; (void)bias; (void)y;  // delete with the todo line
  course::todo("01.2", "conv2d_forward");
}

template void conv2d_forward<float>(const ConvShape&, const float*, const float*, const float*, float*);
template void conv2d_forward<double>(const ConvShape&, const double*, const double*, const double*, double*);

}  // namespace host_layers
