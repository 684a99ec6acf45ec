// Lesson 06, step 06.2: max-pool with a 0/1 mask, for non-overlapping windows (stride >= window;
// the launchers reject other shapes). YOUR FILE: fill in the two kernel bodies.
// Layout NCHW: input i = ((n*C + c)*H + h)*W + w, output o = ((n*C + c)*OH + oh)*OW + ow.
// Index with int64_t and loop grid-stride, as in 06.1.
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

__global__ void forward_mask_kernel(const float* __restrict__ x, float* __restrict__ y, uint8_t* __restrict__ mask,
                                    int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  // TODO(06.2): one thread per output o. Find the window's first maximum as in 06.1 (remember
  // its position (best_h, best_w) inside the window) and write y[o].
  // Then write the mask of the thread's TILE: rows h0 = oh*stride .. h0 + tile_h - 1, columns
  // w0 = ow*stride .. w0 + tile_w - 1, with tile_h = stride (H - h0 for the last row, oh == OH-1)
  // and tile_w = stride (W - w0 when ow == OW-1): mask = 1 at (h0 + best_h, w0 + best_w), 0 at
  // every other input of the tile. The tiles cover the image once, so every mask byte is
  // written exactly once, the inputs that no window reaches included.
}

__global__ void backward_mask_kernel(const uint8_t* __restrict__ mask, const float* __restrict__ dy,
                                     float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                     int window, int stride) {
  // TODO(06.2): one thread per input i = (plane, h, w). Its only possible window is
  // (oh, ow) = (h / stride, w / stride); it is covered when oh < OH, ow < OW, h - oh*stride < window
  // and w - ow*stride < window. Write
  //   dx[i] = covered ? mask[i] * dy[(plane*OH + oh)*OW + ow] : 0
  // (check "covered" BEFORE reading dy: an uncovered input's (oh, ow) may lie outside dy).
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
