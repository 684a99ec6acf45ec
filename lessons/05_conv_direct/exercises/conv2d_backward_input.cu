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
  // TODO(05.2): write dx, the gradient of the forward pass with respect to x, as a GATHER:
  //   dx[n][c][h][w] = sum of W[oc][c][kh][kw] * dy[n][oc][oh][ow] over every oc and every output
  //                    (oh, ow) whose window holds (h, w),  kh = h + pad - oh*stride, kw = w + pad - ow*stride.
  // The launcher starts blocks_for(inputs) blocks of kThreads threads, at least one thread per input
  // element (dx has `inputs` elements). Each dx element is written by exactly one thread, exactly once:
  // no atomics, no +=, and also when the sum is 0 (an input that no window reads, e.g. a 1x1 kernel
  // with stride 2; dx may hold garbage before the call). Threads past the last input write nothing.
}

}  // namespace

void conv2d_backward_input(const ConvShape& s, const float* W, const float* dy, float* dx) {
  check_shape(s, "conv2d_backward_input");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_input_kernel<<<blocks_for(inputs), kThreads>>>(W, dy, dx, inputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
