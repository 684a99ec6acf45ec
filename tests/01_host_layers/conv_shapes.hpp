#pragma once
// Convolution shapes the tests of steps 01.2 and 01.3 run: odd and non-square sizes, batch > 1,
// stride 1/2/3, padding 0/1/2, kernels 1/3/5 and non-square kernels.
#include <string>
#include <vector>

#include "host_layers.hpp"

namespace l01 {

// {batch, in_channels, height, width, out_channels, kernel_h, kernel_w, stride, pad}
inline host_layers::ConvShape conv_shape(int n, int c, int h, int w, int o, int kh, int kw, int stride, int pad) {
  host_layers::ConvShape s;
  s.batch = n, s.in_channels = c, s.height = h, s.width = w;
  s.out_channels = o, s.kernel_h = kh, s.kernel_w = kw, s.stride = stride, s.pad = pad;
  return s;
}

inline std::string describe(const host_layers::ConvShape& s) {
  return "x [" + std::to_string(s.batch) + "," + std::to_string(s.in_channels) + "," + std::to_string(s.height) +
         "," + std::to_string(s.width) + "], W [" + std::to_string(s.out_channels) + "," +
         std::to_string(s.in_channels) + "," + std::to_string(s.kernel_h) + "," + std::to_string(s.kernel_w) +
         "], stride " + std::to_string(s.stride) + ", pad " + std::to_string(s.pad);
}

// Larger shapes: float results against the double reference.
inline std::vector<host_layers::ConvShape> random_conv_shapes() {
  return {
      conv_shape(1, 1, 1, 1, 1, 1, 1, 1, 0),    // a single pixel
      conv_shape(2, 3, 17, 13, 4, 3, 3, 1, 1),  // "same" padding, odd non-square image
      conv_shape(3, 2, 28, 28, 5, 5, 5, 2, 2),  // MNIST-sized, 5x5, stride 2
      conv_shape(2, 1, 33, 17, 3, 3, 5, 3, 0),  // non-square kernel, stride 3, no padding
      conv_shape(1, 4, 9, 7, 2, 1, 1, 2, 0),    // 1x1 kernel, stride 2 skips pixels
      conv_shape(2, 2, 6, 11, 3, 5, 3, 1, 2),   // pad 2 with a 3-wide kernel: edge windows see 2 padded columns
      conv_shape(4, 3, 8, 8, 2, 3, 1, 2, 1),    // 3x1 kernel
      conv_shape(1, 1, 3, 3, 1, 5, 5, 1, 2),    // kernel larger than the image
      conv_shape(2, 3, 28, 28, 6, 3, 3, 1, 0),  // the lesson program's layer, more channels
  };
}

// Small shapes for finite differences (every element of x, W and bias is perturbed).
inline std::vector<host_layers::ConvShape> small_conv_shapes() {
  return {
      conv_shape(2, 2, 7, 6, 3, 3, 3, 1, 1),
      conv_shape(1, 3, 8, 5, 2, 5, 3, 2, 2),
      conv_shape(3, 1, 9, 10, 2, 1, 1, 3, 0),
      conv_shape(2, 2, 5, 5, 2, 3, 2, 2, 0),
      conv_shape(1, 1, 3, 4, 2, 5, 5, 1, 2),
  };
}

}  // namespace l01
