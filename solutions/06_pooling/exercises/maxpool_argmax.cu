// Lesson 06, step 06.1: max-pool with a stored argmax index.
// Forward: one thread per output. Backward: one thread per input (a gather).
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

__global__ void forward_argmax_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ argmax,
                                      int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < outputs;
       o += int64_t(gridDim.x) * blockDim.x) {
    const int ow = static_cast<int>(o % OW);
    const int oh = static_cast<int>(o / OW % OH);
    const int64_t plane = o / (int64_t(OH) * OW);  // n*C + c
    const int64_t corner = (plane * H + int64_t(oh) * stride) * W + int64_t(ow) * stride;
    int64_t best = corner;
    float best_value = x[corner];
    for (int kh = 0; kh < window; ++kh)
      for (int kw = 0; kw < window; ++kw) {
        const int64_t i = corner + int64_t(kh) * W + kw;
        const float v = x[i];
        if (v > best_value) {  // strictly greater: a later equal value does not win (tie rule)
          best_value = v;
          best = i;
        }
      }
    y[o] = best_value;
    if (argmax) argmax[o] = static_cast<int>(best);
  }
}

// dx[i] = sum of dy[o] over the windows o containing i with argmax[o] == i. The windows are
// visited in increasing o, the order lesson 01's scatter adds them in, so even the sums of
// overlapping windows come out bit for bit the same.
__global__ void backward_argmax_kernel(const int* __restrict__ argmax, const float* __restrict__ dy,
                                       float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                       int window, int stride) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < inputs;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int w = static_cast<int>(i % W);
    const int h = static_cast<int>(i / W % H);
    const int64_t plane = i / (int64_t(H) * W);
    const WindowSpan rows = windows_containing(h, window, stride, OH);
    const WindowSpan cols = windows_containing(w, window, stride, OW);
    float sum = 0.0f;
    for (int oh = rows.first; oh <= rows.last; ++oh)
      for (int ow = cols.first; ow <= cols.last; ++ow) {
        const int64_t o = (plane * OH + oh) * OW + ow;
        if (argmax[o] == i) sum += dy[o];
      }
    dx[i] = sum;
  }
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
