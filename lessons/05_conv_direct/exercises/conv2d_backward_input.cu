// Lesson 05, step 05.2: the input gradient dx as a GATHER. YOUR FILE.
// The launcher at the bottom is written; fill in the kernel body.
// Layouts (NCHW): dx[((n*C + c)*H + h)*W + w], W[((oc*C + c)*KH + kh)*KW + kw],
//                 dy[((n*O + oc)*OH + oh)*OW + ow].   d.* are the sizes (conv_launch.cuh).
#include <cstdint>

#include "conv_direct.hpp"
#include "conv_launch.cuh"
#include "course/cuda_check.hpp"

namespace conv_direct {

namespace {

__global__ void backward_input_kernel(const float* __restrict__ W, const float* __restrict__ dy,
                                      float* __restrict__ dx, int64_t inputs, Dims d) {
  // TODO(05.2): one thread per INPUT element i (return when i >= inputs); split i into (n, c, h, w).
  // The thread sums everything that input fed in the forward pass, and is the only one to write dx[i]:
  //   dx[i] = sum over oc, oh, ow of W[oc][c][kh][kw] * dy[n][oc][oh][ow],
  //           kh = h + pad - oh*stride,  kw = w + pad - ow*stride,  for the (oh, ow) whose window holds (h, w).
  // The rows oh whose window holds h (padded coordinate p = h + pad; the README derives it):
  //   first = (p < KH) ? 0 : (p - KH) / stride + 1,    last = min(p / stride, OH - 1)
  // and the same for the columns ow with w, KW, OW. first > last means none: dx[i] = 0.
  // Write dx[i] exactly once, also when the sum is 0.
}

}  // namespace

void conv2d_backward_input(const ConvShape& s, const float* W, const float* dy, float* dx) {
  check_shape(s, "conv2d_backward_input");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_input_kernel<<<blocks_for(inputs), kThreads>>>(W, dy, dx, inputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
