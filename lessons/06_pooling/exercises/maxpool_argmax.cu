// Lesson 06, step 06.1: max-pool with a stored argmax index. YOUR FILE.
// The launchers at the bottom are written; fill in the two kernel bodies.
// Layout NCHW: input i = ((n*C + c)*H + h)*W + w, output o = ((n*C + c)*OH + oh)*OW + ow.
// Index with int64_t (a batch of large images passes 2^31 elements), and use a grid-stride
// loop: the launcher caps the grid, so one thread may have to handle several items:
//   for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < outputs;
//        o += int64_t(gridDim.x) * blockDim.x) { ... }
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

__global__ void forward_argmax_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ argmax,
                                      int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  // TODO(06.1): one thread per output o (grid-stride loop). Split o into (plane = n*C + c, oh, ow);
  // the window's top-left input is corner = (plane*H + oh*stride)*W + ow*stride.
  // Scan the window row by row, left to right (input corner + kh*W + kw); keep the first
  // maximum: replace it only when a value is STRICTLY greater (the tie rule of lesson 01). Then
  //   y[o] = x[best];   if (argmax) argmax[o] = (int)best;     (argmax may be nullptr)
}

__global__ void backward_argmax_kernel(const int* __restrict__ argmax, const float* __restrict__ dy,
                                       float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                       int window, int stride) {
  // TODO(06.1): a GATHER, one thread per input i (grid-stride loop); no atomics needed.
  // Split i into (plane, h, w). The windows that contain (h, w) are
  //   rows = windows_containing(h, window, stride, OH), cols = windows_containing(w, window, stride, OW)
  // (pool_kernels.cuh). Sum dy[o] over o = (plane*OH + oh)*OW + ow for oh in [rows.first, rows.last],
  // ow in [cols.first, cols.last] where argmax[o] == i, in that order (increasing o), starting
  // from 0.0f; then write dx[i] = sum (0 when no window chose i, every dx is written).
}

}  // namespace

void maxpool_forward_argmax(const PoolShape& s, const float* x, float* y, int* argmax) {
  check_shape(s, "maxpool_forward_argmax");
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  forward_argmax_kernel<<<blocks_for(outputs), kThreads>>>(x, y, argmax, outputs, s.height, s.width, s.out_h(),
                                                           s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

void maxpool_backward_argmax(const PoolShape& s, const int* argmax, const float* dy, float* dx) {
  check_shape(s, "maxpool_backward_argmax");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_argmax_kernel<<<blocks_for(inputs), kThreads>>>(argmax, dy, dx, inputs, s.height, s.width, s.out_h(),
                                                           s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pooling
