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
  // TODO(06.3): a gather like 06.1's backward: one thread per input i = (plane, h, w), looping
  // over the windows (oh, ow) from windows_containing(...) in increasing order, summing
  // dy[(plane*OH + oh)*OW + ow] into a float that starts at 0.0f, then dx[i] = sum.
  // Instead of reading a stored argmax, decide from x whether (h, w) is the FIRST maximum of the
  // window with corner (oh*stride, ow*stride): with v = x[i] and p = its position in window
  // order, every input q of the window before p must have x[q] < v (strictly: an equal one
  // earlier wins the tie) and every input after p must have x[q] <= v. Stop at the first failure.
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
