// Lesson 01, step 01.2: 2-D convolution forward (cross-correlation, as in every DL library).
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void conv2d_forward(const ConvShape& s, const T* x, const T* W, const T* bias, T* y) {
  const int OH = s.out_h(), OW = s.out_w();
  for (int n = 0; n < s.batch; ++n)
    for (int o = 0; o < s.out_channels; ++o)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          T sum = bias[o];
          for (int c = 0; c < s.in_channels; ++c)
            for (int kh = 0; kh < s.kernel_h; ++kh) {
              const int ih = oh * s.stride - s.pad + kh;
              if (ih < 0 || ih >= s.height) continue;  // zero padding
              for (int kw = 0; kw < s.kernel_w; ++kw) {
                const int iw = ow * s.stride - s.pad + kw;
                if (iw < 0 || iw >= s.width) continue;
                sum += x[((size_t(n) * s.in_channels + c) * s.height + ih) * s.width + iw] *
                       W[((size_t(o) * s.in_channels + c) * s.kernel_h + kh) * s.kernel_w + kw];
              }
            }
          y[((size_t(n) * s.out_channels + o) * OH + oh) * OW + ow] = sum;
        }
}

template void conv2d_forward<float>(const ConvShape&, const float*, const float*, const float*, float*);
template void conv2d_forward<double>(const ConvShape&, const double*, const double*, const double*, double*);

}  // namespace host_layers
