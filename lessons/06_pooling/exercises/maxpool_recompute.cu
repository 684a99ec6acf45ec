// Lesson 06, step 06.3: max-pool backward that recomputes each window's choice from x (the
// forward stored nothing). YOUR FILE: fill in the kernel body.
// Layout NCHW: input i = ((n*C + c)*H + h)*W + w, output o = ((n*C + c)*OH + oh)*OW + ow.
#include <cstdint>

#include "course/cuda_check.hpp"
#include "pool_kernels.cuh"
#include "pooling.hpp"

namespace pooling {

namespace {

__global__ void backward_recompute_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                                          float* __restrict__ dx, int64_t inputs, int H, int W, int OH, int OW,
                                          int window, int stride) {
  // TODO(06.3): dx as 06.1's backward (a gather; every dx[i] written, 0 when no window chose i;
  // sum in increasing o from 0.0f), but with no stored argmax: decide from x alone whether input i is
  // the FIRST maximum of a window. Tie rule: an equal value earlier in the window (row-major order)
  // wins, so i is chosen only when every earlier input of the window is strictly smaller and every
  // later one is smaller or equal. Use a grid-stride loop over the inputs, as in 06.1.
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
