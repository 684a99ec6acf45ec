// Lesson 07, step 07.1: im2col and col2im on the host, the definition in plain loops.
#include <algorithm>

#include "im2col.hpp"

namespace im2col {

template <typename T>
void im2col_cpu(const ConvShape& s, const T* x, T* col) {
  const int OH = s.out_h(), OW = s.out_w();
  const size_t P = col_cols(s);
  for (int c = 0; c < s.in_channels; ++c)
    for (int i = 0; i < s.kernel_h; ++i)
      for (int j = 0; j < s.kernel_w; ++j) {
        const size_t r = (size_t(c) * s.kernel_h + i) * s.kernel_w + j;
        T* row = col + r * P;
        for (int n = 0; n < s.batch; ++n)
          for (int oh = 0; oh < OH; ++oh) {
            const int h = oh * s.stride - s.pad + i;
            for (int ow = 0; ow < OW; ++ow) {
              const int w = ow * s.stride - s.pad + j;
              const size_t q = (size_t(n) * OH + oh) * OW + ow;
              const bool inside = h >= 0 && h < s.height && w >= 0 && w < s.width;
              // Zero padding: a window position outside the image reads 0.
              row[q] = inside ? x[((size_t(n) * s.in_channels + c) * s.height + h) * s.width + w] : T(0);
            }
          }
      }
}

template <typename T>
void col2im_cpu(const ConvShape& s, const T* col, T* x) {
  const int OH = s.out_h(), OW = s.out_w();
  const size_t P = col_cols(s);
  // Scatter-add: walk col in im2col's order and send every value back to the input
  // element it was copied from. Overlapping windows hit the same element again: +=.
  std::fill(x, x + s.input_size(), T(0));
  for (int c = 0; c < s.in_channels; ++c)
    for (int i = 0; i < s.kernel_h; ++i)
      for (int j = 0; j < s.kernel_w; ++j) {
        const size_t r = (size_t(c) * s.kernel_h + i) * s.kernel_w + j;
        const T* row = col + r * P;
        for (int n = 0; n < s.batch; ++n)
          for (int oh = 0; oh < OH; ++oh) {
            const int h = oh * s.stride - s.pad + i;
            if (h < 0 || h >= s.height) continue;  // padding: read as 0, nothing to send back
            for (int ow = 0; ow < OW; ++ow) {
              const int w = ow * s.stride - s.pad + j;
              if (w < 0 || w >= s.width) continue;
              x[((size_t(n) * s.in_channels + c) * s.height + h) * s.width + w] +=
                  row[(size_t(n) * OH + oh) * OW + ow];
            }
          }
      }
}

template void im2col_cpu<float>(const ConvShape&, const float*, float*);
template void im2col_cpu<double>(const ConvShape&, const double*, double*);
template void col2im_cpu<float>(const ConvShape&, const float*, float*);
template void col2im_cpu<double>(const ConvShape&, const double*, double*);

}  // namespace im2col
