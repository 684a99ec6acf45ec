// Lesson 05, step 05.1: direct convolution forward. YOUR FILE.
// The launcher at the bottom is written; fill in the kernel body.
// Layouts (NCHW): x[((n*C + c)*H + ih)*W + iw], W[((oc*C + c)*KH + kh)*KW + kw],
//                 y[((n*O + oc)*OH + oh)*OW + ow].   d.* are the sizes (conv_launch.cuh).
// Index with int64_t: a batch of large feature maps passes 2^31 elements.
#include <cstdint>

#include "conv_direct.hpp"
#include "conv_launch.cuh"
#include "course/cuda_check.hpp"

namespace conv_direct {

namespace {

__global__ void forward_kernel(const float* __restrict__ x, const float* __restrict__ W,
                               const float* __restrict__ bias, float* __restrict__ y, int64_t outputs, Dims d) {
  // TODO(05.1): write y, every element of it:
  //   y[n][oc][oh][ow] = bias[oc] + sum over c, kh, kw of x[n][c][ih][iw] * W[oc][c][kh][kw],
  //   ih = oh*stride - pad + kh,  iw = ow*stride - pad + kw     (lesson 01's cross-correlation).
  // Zero padding: a tap with ih outside [0, H) or iw outside [0, W) adds nothing (never read x there).
  // The launcher starts blocks_for(outputs) blocks of kThreads threads, at least one thread per
  // output (y has `outputs` elements); a thread past the last output writes nothing.
}

}  // namespace

void conv2d_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y) {
  check_shape(s, "conv2d_forward");
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  forward_kernel<<<blocks_for(outputs), kThreads>>>(x, W, bias, y, outputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
