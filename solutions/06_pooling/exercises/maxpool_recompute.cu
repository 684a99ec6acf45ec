// Lesson 06, step 06.3: max-pool backward that recomputes the choice from x (nothing stored).
// One thread per input element; it loops over the windows containing it (a gather).
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

// Is the input at (h, w) the FIRST maximum of the window with top-left corner (h0, w0)?
// Compare, don't search: every input before it in row-major window order must be strictly
// smaller (an equal one earlier would win the tie), every input after it must not be larger.
// The first failing comparison ends the scan.
__device__ bool is_first_maximum(const float* plane_x, int W, int h0, int w0, int window, int h, int w) {
  const float v = plane_x[int64_t(h) * W + w];
  const int p = (h - h0) * window + (w - w0);  // position of (h, w) in window order
  for (int kh = 0; kh < window; ++kh)
    for (int kw = 0; kw < window; ++kw) {
      const int q = kh * window + kw;
      const float u = plane_x[int64_t(h0 + kh) * W + (w0 + kw)];
      if (q < p ? u >= v : u > v) return false;
    }
  return true;
}

__global__ void backward_recompute_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                                          float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                          int window, int stride) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < inputs;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int w = static_cast<int>(i % W);
    const int h = static_cast<int>(i / W % H);
    const int64_t plane = i / (int64_t(H) * W);
    const float* plane_x = x + plane * H * W;
    const WindowSpan rows = windows_containing(h, window, stride, OH);
    const WindowSpan cols = windows_containing(w, window, stride, OW);
    float sum = 0.0f;  // windows in increasing output order, as lesson 01 adds them
    for (int oh = rows.first; oh <= rows.last; ++oh)
      for (int ow = cols.first; ow <= cols.last; ++ow)
        if (is_first_maximum(plane_x, W, oh * stride, ow * stride, window, h, w))
          sum += dy[(plane * OH + oh) * OW + ow];
    dx[i] = sum;
  }
}

}  // namespace

void maxpool_backward_recompute(const PoolShape& s, const float* x, const float* dy, float* dx) {
  check_shape(s, "maxpool_backward_recompute");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_recompute_kernel<<<blocks_for(inputs), kThreads>>>(x, dy, dx, inputs, s.height, s.width, s.out_h(),
                                                              s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pooling
