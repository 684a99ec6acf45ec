// Lesson 01, step 01.3: 2-D convolution backward. Walk the same loops as the
// forward pass; every product x*W that made y contributes dy*W to dx and dy*x to dW.
#include <algorithm>

#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void conv2d_backward(const ConvShape& s, const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias) {
  const int OH = s.out_h(), OW = s.out_w();
  std::fill(dx, dx + s.input_size(), T(0));
  std::fill(dW, dW + s.weight_size(), T(0));
  std::fill(dbias, dbias + s.out_channels, T(0));
  for (int n = 0; n < s.batch; ++n)
    for (int o = 0; o < s.out_channels; ++o)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          const T g = dy[((size_t(n) * s.out_channels + o) * OH + oh) * OW + ow];
          dbias[o] += g;
          for (int c = 0; c < s.in_channels; ++c)
            for (int kh = 0; kh < s.kernel_h; ++kh) {
              const int ih = oh * s.stride - s.pad + kh;
              if (ih < 0 || ih >= s.height) continue;
              for (int kw = 0; kw < s.kernel_w; ++kw) {
                const int iw = ow * s.stride - s.pad + kw;
                if (iw < 0 || iw >= s.width) continue;
                const size_t xi = ((size_t(n) * s.in_channels + c) * s.height + ih) * s.width + iw;
                const size_t wi = ((size_t(o) * s.in_channels + c) * s.kernel_h + kh) * s.kernel_w + kw;
                dx[xi] += g * W[wi];
                dW[wi] += g * x[xi];
              }
            }
        }
}

template void conv2d_backward<float>(const ConvShape&, const float*, const float*, const float*, float*, float*,
                                     float*);
template void conv2d_backward<double>(const ConvShape&, const double*, const double*, const double*, double*,
                                      double*, double*);

}  // namespace host_layers
