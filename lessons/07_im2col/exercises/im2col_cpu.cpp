// Lesson 07, step 07.1: im2col and col2im on the host. YOUR FILE.
// Layout (see im2col.hpp): col is K x P, K = C*kh*kw rows, P = N*OH*OW columns,
//   row r = (c*kh + i)*kw + j,  column q = (n*OH + oh)*OW + ow.
// Uncomment the parameter names when you write a function.
#include <algorithm>

#include "course/error.hpp"
#include "im2col.hpp"

namespace im2col {

template <typename T>
void im2col_cpu(const ConvShape& /*s*/, const T* /*x*/, T* /*col*/) {
  // TODO(07.1): col [K x P], row-major, for every row r = (c, i, j) and column q = (n, oh, ow):
  //   col[r*P + q] = x[n][c][oh*stride - pad + i][ow*stride - pad + j],  0 where that is outside the image.
  // Write EVERY element of col (the padding zeros too): col may hold garbage before the call.
  course::todo("07.1", "im2col_cpu (every kh x kw window into one column)");
}

template <typename T>
void col2im_cpu(const ConvShape& /*s*/, const T* /*col*/, T* /*x*/) {
  // TODO(07.1): the adjoint of im2col: x = 0 everywhere, plus every col[r*P + q] whose (h, w)
  // (as in im2col) is inside the image, added into x[n][c][h][w]. Overwrite x (it may hold garbage);
  // overlapping windows (stride < kernel) add into the same element; entries in the padding are dropped.
  course::todo("07.1", "col2im_cpu (every column entry added back to its input element)");
}

template void im2col_cpu<float>(const ConvShape&, const float*, float*);
template void im2col_cpu<double>(const ConvShape&, const double*, double*);
template void col2im_cpu<float>(const ConvShape&, const float*, float*);
template void col2im_cpu<double>(const ConvShape&, const double*, double*);

}  // namespace im2col
