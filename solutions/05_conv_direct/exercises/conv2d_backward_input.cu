// Lesson 05, step 05.2: the input gradient as a gather, one thread per input element.
#include <cstdint>

#include "conv_direct.hpp"
#include "conv_launch.cuh"
#include "course/cuda_check.hpp"

namespace conv_direct {

namespace {

// The outputs along one axis whose windows contain input coordinate `in`. In padded
// coordinates p = in + pad, output k's window covers [k*stride, k*stride + kernel - 1], so
//     k*stride <= p <= k*stride + kernel - 1
//  => ceil((p - kernel + 1) / stride) <= k <= floor(p / stride), clipped to [0, count - 1].
// first > last when no window contains it (stride > kernel, or a row past the last window).
struct Span {
  int first, last;
};
__device__ inline Span windows_containing(int in, int pad, int kernel, int stride, int count) {
  const int p = in + pad;
  // For p >= kernel, ceil((p - kernel + 1) / stride) = (p - kernel) / stride + 1 in integers.
  const int first = p < kernel ? 0 : (p - kernel) / stride + 1;
  const int last = min(p / stride, count - 1);
  return {first, last};
}

// Thread i computes dx[i], i = ((n*C + c)*H + h)*W + w:
//     dx[n][c][h][w] = sum over oc and over the (oh, ow) whose window holds (h, w) of
//                      W[oc][c][kh][kw] * dy[n][oc][oh][ow],  kh = h + pad - oh*stride, kw likewise.
// Only this thread writes dx[i]: no atomics, and the additions come in a fixed order
// (oc, oh, ow), the order lesson 01's scatter adds them in.
__global__ void backward_input_kernel(const float* __restrict__ W, const float* __restrict__ dy,
                                      float* __restrict__ dx, int64_t inputs, Dims d) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= inputs) return;
  const int w = static_cast<int>(i % d.W);
  const int h = static_cast<int>(i / d.W % d.H);
  const int c = static_cast<int>(i / (int64_t(d.W) * d.H) % d.C);
  const int64_t n = i / (int64_t(d.W) * d.H * d.C);

  const Span rows = windows_containing(h, d.pad, d.KH, d.stride, d.OH);
  const Span cols = windows_containing(w, d.pad, d.KW, d.stride, d.OW);
  float sum = 0.0f;
  for (int oc = 0; oc < d.O; ++oc) {
    const float* dy_plane = dy + (n * d.O + oc) * d.OH * d.OW;
    const float* w_taps = W + (int64_t(oc) * d.C + c) * d.KH * d.KW;
    for (int oh = rows.first; oh <= rows.last; ++oh) {
      const int kh = h + d.pad - oh * d.stride;
      for (int ow = cols.first; ow <= cols.last; ++ow) {
        const int kw = w + d.pad - ow * d.stride;
        sum += w_taps[kh * d.KW + kw] * dy_plane[int64_t(oh) * d.OW + ow];
      }
    }
  }
  dx[i] = sum;  // 0 for an input no window reads
}

}  // namespace

void conv2d_backward_input(const ConvShape& s, const float* W, const float* dy, float* dx) {
  check_shape(s, "conv2d_backward_input");
  const int64_t inputs = static_cast<int64_t>(s.input_size());
  backward_input_kernel<<<blocks_for(inputs), kThreads>>>(W, dy, dx, inputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
