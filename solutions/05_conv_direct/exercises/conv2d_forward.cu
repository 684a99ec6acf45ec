// Lesson 05, step 05.1: direct convolution forward, one thread per output element.
#include <cstdint>

#include "conv_direct.hpp"
#include "conv_launch.cuh"
#include "course/cuda_check.hpp"

namespace conv_direct {

namespace {

// Thread o computes y[o], o = ((n*O + oc)*OH + oh)*OW + ow. Neighbouring threads share n and oc
// and differ in ow: they read the same weights (one broadcast load per warp) and neighbouring
// pixels of x (cached in L1), and write consecutive y (coalesced).
__global__ void forward_kernel(const float* __restrict__ x, const float* __restrict__ W,
                               const float* __restrict__ bias, float* __restrict__ y, int64_t outputs, Dims d) {
  const int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (o >= outputs) return;
  const int ow = static_cast<int>(o % d.OW);
  const int oh = static_cast<int>(o / d.OW % d.OH);
  const int oc = static_cast<int>(o / (int64_t(d.OW) * d.OH) % d.O);
  const int64_t n = o / (int64_t(d.OW) * d.OH * d.O);

  // Same order of additions as lesson 01: bias, then c, kh, kw.
  float sum = bias[oc];
  for (int c = 0; c < d.C; ++c) {
    const float* x_plane = x + (n * d.C + c) * d.H * d.W;
    const float* w_taps = W + (int64_t(oc) * d.C + c) * d.KH * d.KW;
    for (int kh = 0; kh < d.KH; ++kh) {
      const int ih = oh * d.stride - d.pad + kh;
      if (ih < 0 || ih >= d.H) continue;  // a padded row: adds 0
      for (int kw = 0; kw < d.KW; ++kw) {
        const int iw = ow * d.stride - d.pad + kw;
        if (iw < 0 || iw >= d.W) continue;
        sum += x_plane[int64_t(ih) * d.W + iw] * w_taps[kh * d.KW + kw];
      }
    }
  }
  y[o] = sum;
}

}  // namespace

void conv2d_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y) {
  check_shape(s, "conv2d_forward");
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  forward_kernel<<<blocks_for(outputs), kThreads>>>(x, W, bias, y, outputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
