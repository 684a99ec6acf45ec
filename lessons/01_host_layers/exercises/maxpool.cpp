// Lesson 01, step 01.4: max-pooling forward and backward.
#include "course/error.hpp"
#include "host_layers.hpp"

namespace host_layers {

template <typename T>
void maxpool_forward(const PoolShape& s, const T* x, T* y, int* argmax) {
  // TODO(01.4): for every n, c, oh < s.out_h(), ow < s.out_w(): the window is the
  // s.window x s.window square of x[n][c] whose top-left corner is (oh * stride, ow * stride)
  // (no padding). y[n][c][oh][ow] = the largest value in the window, and, when argmax is not
  // nullptr, argmax[n][c][oh][ow] = its flat index into the whole of x (n and c included).
  // argmax may be nullptr: then write y alone.
  // Tie rule: the FIRST maximum wins, in row-by-row, left-to-right order (a later equal value
  // never replaces it: only a STRICTLY greater one does).
  (void)s; (void)x; (void)y; (void)argmax;  // delete with the todo line
  course::todo("01.4", "maxpool_forward");
}

template <typename T>
void maxpool_backward(const PoolShape& s, const int* argmax, const T* dy, T* dx) {
  // TODO(01.4): argmax and dy hold one value per output (s.output_size()), dx one per input
  // (s.input_size()). dx[i] = the sum of dy[j] over the outputs j with argmax[j] == i: 0 for
  // an input no window chose, and the SUM when overlapping windows chose the same input.
  // Write all of dx (the caller may pass garbage; set it to 0 first).
  (void)s; (void)argmax; (void)dy; (void)dx;  // delete with the todo line
  course::todo("01.4", "maxpool_backward");
}

template void maxpool_forward<float>(const PoolShape&, const float*, float*, int*);
template void maxpool_forward<double>(const PoolShape&, const double*, double*, int*);
template void maxpool_backward<float>(const PoolShape&, const int*, const float*, float*);
template void maxpool_backward<double>(const PoolShape&, const int*, const double*, double*);

}  // namespace host_layers
