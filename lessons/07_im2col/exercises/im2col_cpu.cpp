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
  // TODO(07.1): for every (c, i, j) row and (n, oh, ow) column:
  //   h = oh*stride - pad + i,  w = ow*stride - pad + j
  //   col[r*P + q] = x[((n*C + c)*H + h)*W + w]  if 0 <= h < H and 0 <= w < W, else 0.
  // Write EVERY element of col (the padding zeros too).
  course::todo("07.1", "im2col_cpu (every kh x kw window into one column)");
}

template <typename T>
void col2im_cpu(const ConvShape& /*s*/, const T* /*col*/, T* /*x*/) {
  // TODO(07.1): the adjoint of im2col. Set x to 0, then walk col in the same loops as
  // im2col and ADD col[r*P + q] into x[((n*C + c)*H + h)*W + w] wherever (h, w) is inside
  // the image. Overlapping windows (stride < kernel) add into the same element.
  course::todo("07.1", "col2im_cpu (every column entry added back to its input element)");
}

template void im2col_cpu<float>(const ConvShape&, const float*, float*);
template void im2col_cpu<double>(const ConvShape&, const double*, double*);
template void col2im_cpu<float>(const ConvShape&, const float*, float*);
template void col2im_cpu<double>(const ConvShape&, const double*, double*);

}  // namespace im2col
