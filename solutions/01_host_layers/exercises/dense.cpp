// Lesson 01, step 01.1: dense (fully connected) layer, forward and backward.
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void dense_forward(const T* x, const T* W, const T* bias, T* y, int batch, int in, int out) {
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      T sum = bias[o];
      for (int i = 0; i < in; ++i) sum += x[b * in + i] * W[o * in + i];
      y[b * out + o] = sum;
    }
}

template <typename T>
void dense_backward(const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias, int batch, int in, int out) {
  // dx[b][i] = sum_o dy[b][o] * W[o][i]
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < in; ++i) {
      T sum = 0;
      for (int o = 0; o < out; ++o) sum += dy[b * out + o] * W[o * in + i];
      dx[b * in + i] = sum;
    }
  // dW[o][i] = sum_b dy[b][o] * x[b][i];  dbias[o] = sum_b dy[b][o]
  for (int o = 0; o < out; ++o) {
    T bias_sum = 0;
    for (int b = 0; b < batch; ++b) bias_sum += dy[b * out + o];
    dbias[o] = bias_sum;
    for (int i = 0; i < in; ++i) {
      T sum = 0;
      for (int b = 0; b < batch; ++b) sum += dy[b * out + o] * x[b * in + i];
      dW[o * in + i] = sum;
    }
  }
}

template void dense_forward<float>(const float*, const float*, const float*, float*, int, int, int);
template void dense_forward<double>(const double*, const double*, const double*, double*, int, int, int);
template void dense_backward<float>(const float*, const float*, const float*, float*, float*, float*, int, int, int);
template void dense_backward<double>(const double*, const double*, const double*, double*, double*, double*, int,
                                     int, int);

}  // namespace host_layers
