// Lesson 01, step 01.5: max-pooling forward and backward.
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void maxpool_forward(const PoolShape& s, const T* x, T* y, int* argmax) {
  // TODO(01.5): for every n, c, oh < s.out_h(), ow < s.out_w(): the window is the
  // s.window x s.window square of x[n][c] whose top-left corner is (oh * stride, ow * stride).
  // Scan it row by row, left to right; keep the flat index of the largest value, replacing
  // it only when a value is STRICTLY greater (ties: the first maximum wins). Then
  //   y[n][c][oh][ow] = x[best];   if (argmax) argmax[n][c][oh][ow] = best  (flat index into x)
  (void)s; (void)x; (void)y; (void)argmax;  // delete with the todo line
  course::todo("01.5", "maxpool_forward");
}

template <typename T>
void maxpool_backward(const PoolShape& s, const int* argmax, const T* dy, T* dx) {
  // TODO(01.5): set all s.input_size() values of dx to 0, then for every output j:
  //   dx[argmax[j]] += dy[j]        (+=: overlapping windows may pick the same input)
  (void)s; (void)argmax; (void)dy; (void)dx;  // delete with the todo line
  course::todo("01.5", "maxpool_backward");
}

template void maxpool_forward<float>(const PoolShape&, const float*, float*, int*);
template void maxpool_forward<double>(const PoolShape&, const double*, double*, int*);
template void maxpool_backward<float>(const PoolShape&, const int*, const float*, float*);
template void maxpool_backward<double>(const PoolShape&, const int*, const double*, double*);

}  // namespace host_layers
