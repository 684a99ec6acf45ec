// Lesson 15, step 15.5: global average pooling on the CPU.
#include <cstddef>

#include "deeper_cnns.hpp"

namespace deeper_cnns {

template <typename T>
void global_avg_pool_forward(const T* x, T* y, int batch, int channels, int plane) {
  check_pooling("global_avg_pool_forward", batch, channels, plane);
  for (size_t nc = 0; nc < size_t(batch) * channels; ++nc) {  // the planes lie one after another
    T sum = 0;
    for (int p = 0; p < plane; ++p) sum += x[nc * plane + p];
    y[nc] = sum / T(plane);
  }
}

template <typename T>
void global_avg_pool_backward(const T* dy, T* dx, int batch, int channels, int plane) {
  check_pooling("global_avg_pool_backward", batch, channels, plane);
  for (size_t nc = 0; nc < size_t(batch) * channels; ++nc)
    for (int p = 0; p < plane; ++p) dx[nc * plane + p] = dy[nc] / T(plane);
}

template void global_avg_pool_forward<float>(const float*, float*, int, int, int);
template void global_avg_pool_forward<double>(const double*, double*, int, int, int);
template void global_avg_pool_backward<float>(const float*, float*, int, int, int);
template void global_avg_pool_backward<double>(const double*, double*, int, int, int);

}  // namespace deeper_cnns
