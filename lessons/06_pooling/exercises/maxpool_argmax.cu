// Lesson 06, step 06.1: max-pool with a stored argmax index. YOUR FILE.
// The launchers at the bottom are written; fill in the two kernel bodies.
// Layout NCHW: input i = ((n*C + c)*H + h)*W + w, output o = ((n*C + c)*OH + oh)*OW + ow.
// Index with int64_t (a batch of large images passes 2^31 elements). The launcher caps the grid
// (blocks_for), so there may be fewer threads than items: every kernel must cover all its items
// with a grid-stride loop, one thread handling several.
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

__global__ void forward_argmax_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ argmax,
                                      int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  // TODO(06.1): for every output o (grid-stride): y[o] = the maximum of its window, the window x
  // window square of plane n*C + c whose top-left input is (oh*stride, ow*stride), and
  // argmax[o] = the flat input index i of that maximum (as an int). Tie rule (lesson 01): the FIRST
  // maximum in row-major window order wins, an equal value later in the window does not.
  // argmax may be nullptr: then write y alone.
}

__global__ void backward_argmax_kernel(const int* __restrict__ argmax, const float* __restrict__ dy,
                                       float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                       int window, int stride) {
  // TODO(06.1): for every input i (grid-stride): dx[i] = the sum of dy[o] over the outputs o whose
  // argmax[o] == i (overlapping windows may both pick i), as a GATHER: one thread writes each dx[i],
  // no atomics. Add in increasing o from 0.0f (lesson 01's order). Write every dx[i], 0 when no window
  // chose it (dx may hold garbage before the call). windows_containing (pool_kernels.cuh) gives
  // the range of windows that contain a row or a column.
}

}  // namespace

void maxpool_forward_argmax(const PoolShape& s, const float* x, float* y, int* argmax) {
  check_shape(s, "maxpool_forward_argmax");
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  forward_argmax_kernel<<<blocks_for(outputs), kThreads>>>(x, y, argmax, outputs, s.height, s.width, s.out_h(),
                                                           s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

void maxpool_backward_argmax(const PoolShape& s, const int* argmax, const float* dy, float* dx,
                             cudaStream_t stream) {
  check_shape(s, "maxpool_backward_argmax");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_argmax_kernel<<<blocks_for(inputs), kThreads, 0, stream>>>(argmax, dy, dx, inputs, s.height, s.width,
                                                                      s.out_h(), s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pooling
