// Lesson 01, step 01.4: max-pooling forward and backward. Ties: first maximum wins.
#include <algorithm>

#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void maxpool_forward(const PoolShape& s, const T* x, T* y, int* argmax) {
  const int OH = s.out_h(), OW = s.out_w();
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < s.channels; ++c) {
      const size_t plane = (size_t(n) * s.channels + c) * s.height * s.width;
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          size_t best = plane + size_t(oh * s.stride) * s.width + ow * s.stride;
          for (int kh = 0; kh < s.window; ++kh)
            for (int kw = 0; kw < s.window; ++kw) {
              const size_t i = plane + size_t(oh * s.stride + kh) * s.width + (ow * s.stride + kw);
              if (x[i] > x[best]) best = i;  // strictly greater: an equal value later does not win
            }
          const size_t out = ((size_t(n) * s.channels + c) * OH + oh) * OW + ow;
          y[out] = x[best];
          if (argmax) argmax[out] = static_cast<int>(best);
        }
    }
}

template <typename T>
void maxpool_backward(const PoolShape& s, const int* argmax, const T* dy, T* dx) {
  std::fill(dx, dx + s.input_size(), T(0));
  const size_t outputs = s.output_size();
  for (size_t out = 0; out < outputs; ++out) dx[argmax[out]] += dy[out];
}

template void maxpool_forward<float>(const PoolShape&, const float*, float*, int*);
template void maxpool_forward<double>(const PoolShape&, const double*, double*, int*);
template void maxpool_backward<float>(const PoolShape&, const int*, const float*, float*);
template void maxpool_backward<double>(const PoolShape&, const int*, const double*, double*);

}  // namespace host_layers
