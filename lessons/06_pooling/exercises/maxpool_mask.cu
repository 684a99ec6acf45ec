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
  // TODO(06.2): for every output o (grid-stride): y[o] as in 06.1 (first maximum of the window), and
  // mask[i] for the inputs of this output's TILE: mask = 1 at the window's first maximum, 0 at
  // every other input of the tile. The tile of (oh, ow) is rows oh*stride .. oh*stride + stride - 1
  // and columns ow*stride .. ow*stride + stride - 1, the last row of tiles (oh == OH-1) stretched
  // down to H - 1 and the last column (ow == OW-1) to W - 1. The tiles cover the image once, so
  // every mask byte is written exactly once, the inputs that no window reaches included (0 there).
}

__global__ void backward_mask_kernel(const uint8_t* __restrict__ mask, const float* __restrict__ dy,
                                     float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                     int window, int stride) {
  // TODO(06.2): for every input i = (plane, h, w) (grid-stride): with stride >= window, i lies in at
  // most one window. dx[i] = mask[i] * dy[that window's o] when a window covers i, else 0.
  // Decide "covered" BEFORE reading dy: an uncovered input's would-be window index may lie past the
  // end of dy. Write every dx[i].
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
