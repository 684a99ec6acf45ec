// Lesson 07, step 07.2: im2col and col2im on the GPU. YOUR FILE.
// The launchers at the bottom are written; fill in the two kernel bodies.
// Layout (see im2col.hpp): col is K x P, K = C*KH*KW rows, P = N*OH*OW columns,
//   row r = (c*KH + i)*KW + j,  column q = (n*OH + oh)*OW + ow.
// Index with int64_t: K*P exceeds 2^31 for large layers.
#include <algorithm>
#include <cstdint>

#include "course/cuda_check.hpp"
#include "im2col.hpp"

namespace im2col {

namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU; a grid-stride loop in the kernel covers the rest.
int blocks_for(int64_t work) {
  return static_cast<int>(std::min<int64_t>((work + kThreads - 1) / kThreads, 65535 * 8));
}

__global__ void im2col_kernel(const float* __restrict__ x, float* __restrict__ col, int N, int C, int H, int W,
                              int KH, int KW, int stride, int pad, int OH, int OW) {
  // TODO(07.2): one thread per (channel c, column q), t = c*P + q, in a grid-stride loop
  //   for (int64_t t = blockIdx.x*blockDim.x + threadIdx.x; t < C*P; t += gridDim.x*blockDim.x)
  // Split q into (n, oh, ow); for each kernel offset (i, j) write
  //   col[((c*KH + i)*KW + j)*P + q] = x[n][c][oh*stride - pad + i][ow*stride - pad + j] or 0 outside.
  // Neighbouring threads get neighbouring q, so the writes of each row are coalesced.
}

__global__ void col2im_kernel(const float* __restrict__ col, float* __restrict__ x, int N, int C, int H, int W,
                              int KH, int KW, int stride, int pad, int OH, int OW) {
  // TODO(07.2): one thread per input element t = ((n*C + c)*H + h)*W + w (grid-stride loop).
  // A GATHER, no atomics: sum col[r*P + q] over every window that covers (h, w), i.e. every
  // (oh, ow) with i = h + pad - oh*stride in [0, KH) and j = w + pad - ow*stride in [0, KW)
  // (and 0 <= oh < OH, 0 <= ow < OW); r = (c*KH + i)*KW + j, q = (n*OH + oh)*OW + ow.
  // Write x[t] = sum (0 when no window covers it).
}

}  // namespace

void im2col_gpu(const ConvShape& s, const float* x, float* col) {
  const int64_t work = int64_t(s.in_channels) * static_cast<int64_t>(col_cols(s));
  if (work == 0) return;
  im2col_kernel<<<blocks_for(work), kThreads>>>(x, col, s.batch, s.in_channels, s.height, s.width, s.kernel_h,
                                                s.kernel_w, s.stride, s.pad, s.out_h(), s.out_w());
  CUDA_CHECK_LAUNCH();
}

void col2im_gpu(const ConvShape& s, const float* col, float* x) {
  const int64_t work = static_cast<int64_t>(s.input_size());
  if (work == 0) return;
  col2im_kernel<<<blocks_for(work), kThreads>>>(col, x, s.batch, s.in_channels, s.height, s.width, s.kernel_h,
                                                s.kernel_w, s.stride, s.pad, s.out_h(), s.out_w());
  CUDA_CHECK_LAUNCH();
}

}  // namespace im2col
