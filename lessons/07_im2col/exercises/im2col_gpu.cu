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
  // TODO(07.2): col as im2col_cpu writes it (every element, 0 in the padding), in a grid-stride loop:
  // the launcher starts blocks_for(C*P) blocks of kThreads (capped) and means one item per
  // (channel c, column q), t = c*P + q, each item writing the KH*KW entries of column q for channel c.
  // Neighbouring items must write neighbouring addresses of a row of col (coalesced).
}

__global__ void col2im_kernel(const float* __restrict__ col, float* __restrict__ x, int N, int C, int H, int W,
                              int KH, int KW, int stride, int pad, int OH, int OW) {
  // TODO(07.2): x as col2im_cpu gives it, in a grid-stride loop over the input elements
  // t = ((n*C + c)*H + h)*W + w (the launcher starts blocks_for(N*C*H*W) blocks, capped). A GATHER:
  // the item of (n, c, h, w) alone writes x[t], the sum of the col entries copied from (h, w);
  // no atomics, a fixed order (the same bits every run). Write every x[t], 0 when no window covers it.
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
