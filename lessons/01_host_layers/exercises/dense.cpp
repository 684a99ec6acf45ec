// Lesson 01, step 01.1: dense (fully connected) layer, forward and backward.
// Layouts: x [batch x in], W [out x in] (row o holds the weights of output o), bias [out],
// y and dy [batch x out]; element (r, c) of a [rows x cols] matrix is at r * cols + c.
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void dense_forward(const T* x, const T* W, const T* bias, T* y, int batch, int in, int out) {
  // TODO(01.1): y = x W^T + bias: for every b < batch and o < out,
  //   y[b][o] = bias[o] + sum over i < in of x[b][i] * W[o][i].
  // Write every element of y (the caller may pass garbage in it).
  (void)x; (void)W; (void)bias; (void)y; (void)batch; (void)in; (void)out;  // delete with the todo line
  course::todo("01.1", "dense_forward");
}

template <typename T>
void dense_backward(const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias, int batch, int in, int out) {
  // TODO(01.1): given dy = dL/dy [batch x out] of y = x W^T + bias, write the three gradients
  // dx = dL/dx [batch x in], dW = dL/dW [out x in] and dbias = dL/dbias [out].
  // WRITE every element of all three (do not add to what the arrays hold: the caller may pass
  // garbage). x and W are the forward pass's inputs; read-only.
  (void)x; (void)W; (void)dy; (void)dx; (void)dW; (void)dbias; (void)batch; (void)in; (void)out;
  course::todo("01.1", "dense_backward");
}

template void dense_forward<float>(const float*, const float*, const float*, float*, int, int, int);
template void dense_forward<double>(const double*, const double*, const double*, double*, int, int, int);
template void dense_backward<float>(const float*, const float*, const float*, float*, float*, float*, int, int, int);
template void dense_backward<double>(const double*, const double*, const double*, double*, double*, double*, int,
                                     int, int);

}  // namespace host_layers
