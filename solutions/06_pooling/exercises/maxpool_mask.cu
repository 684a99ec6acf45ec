// Lesson 06, step 06.2: max-pool with a 0/1 mask (non-overlapping windows only).
// Forward: one thread per output writes y and the mask of its whole tile.
// Backward: one thread per input, dx = mask * dy of its window (an elementwise product).
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

// With stride >= window the image splits into tiles of stride x stride, one per output, each
// holding its window in the top-left corner; the last row and column of tiles stretch to the
// image edge to take in the rows/columns no window reaches. Every input belongs to exactly one
// tile, so each thread writing its own tile's mask writes every mask entry once, with no race.
__global__ void forward_mask_kernel(const float* __restrict__ x, float* __restrict__ y, uint8_t* __restrict__ mask,
                                    int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < outputs;
       o += int64_t(gridDim.x) * blockDim.x) {
    const int ow = static_cast<int>(o % OW);
    const int oh = static_cast<int>(o / OW % OH);
    const int64_t plane = o / (int64_t(OH) * OW);
    const int h0 = oh * stride, w0 = ow * stride;
    const int64_t corner = (plane * H + h0) * W + w0;

    int best_h = 0, best_w = 0;  // position of the first maximum inside the window
    float best_value = x[corner];
    for (int kh = 0; kh < window; ++kh)
      for (int kw = 0; kw < window; ++kw) {
        const float v = x[corner + int64_t(kh) * W + kw];
        if (v > best_value) {  // strictly greater: ties go to the first maximum
          best_value = v;
          best_h = kh;
          best_w = kw;
        }
      }
    y[o] = best_value;

    const int tile_h = oh == OH - 1 ? H - h0 : stride;
    const int tile_w = ow == OW - 1 ? W - w0 : stride;
    for (int th = 0; th < tile_h; ++th)
      for (int tw = 0; tw < tile_w; ++tw)
        mask[corner + int64_t(th) * W + tw] = (th == best_h && tw == best_w) ? 1 : 0;
  }
}

__global__ void backward_mask_kernel(const uint8_t* __restrict__ mask, const float* __restrict__ dy,
                                     float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                     int window, int stride) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < inputs;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int w = static_cast<int>(i % W);
    const int h = static_cast<int>(i / W % H);
    const int64_t plane = i / (int64_t(H) * W);
    // The only window that can hold (h, w) is (h / stride, w / stride); it really does when
    // that window exists and (h, w) is not in the gap between windows (stride > window).
    const int oh = h / stride, ow = w / stride;
    const bool covered = oh < OH && ow < OW && h - oh * stride < window && w - ow * stride < window;
    dx[i] = covered ? float(mask[i]) * dy[(plane * OH + oh) * OW + ow] : 0.0f;
  }
}

}  // namespace

void maxpool_forward_mask(const PoolShape& s, const float* x, float* y, uint8_t* mask) {
  check_mask_shape(s, "maxpool_forward_mask");
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  forward_mask_kernel<<<blocks_for(outputs), kThreads>>>(x, y, mask, outputs, s.height, s.width, s.out_h(),
                                                         s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

void maxpool_backward_mask(const PoolShape& s, const uint8_t* mask, const float* dy, float* dx) {
  check_mask_shape(s, "maxpool_backward_mask");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_mask_kernel<<<blocks_for(inputs), kThreads>>>(mask, dy, dx, inputs, s.height, s.width, s.out_h(),
                                                         s.out_w(), s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pooling
