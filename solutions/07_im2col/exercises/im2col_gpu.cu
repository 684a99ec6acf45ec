// Lesson 07, step 07.2: im2col and col2im on the GPU.
#include <algorithm>
#include <cstdint>

#include "course/cuda_check.hpp"
#include "im2col.hpp"

namespace im2col {

namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU; the grid-stride loops in the kernels cover the rest.
int blocks_for(int64_t work) {
  return static_cast<int>(std::min<int64_t>((work + kThreads - 1) / kThreads, 65535 * 8));
}

// One thread per (channel c, column q): it reads the kh x kw window of image n at
// output position (oh, ow) and writes one value into each of the window's kh*kw rows.
// Neighbouring threads own neighbouring columns q, so every write row is coalesced.
__global__ void im2col_kernel(const float* __restrict__ x, float* __restrict__ col, int N, int C, int H, int W,
                              int KH, int KW, int stride, int pad, int OH, int OW) {
  const int64_t P = int64_t(N) * OH * OW;
  const int64_t total = int64_t(C) * P;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t q = t % P;
    const int c = static_cast<int>(t / P);
    const int ow = static_cast<int>(q % OW);
    const int oh = static_cast<int>((q / OW) % OH);
    const int n = static_cast<int>(q / (int64_t(OW) * OH));
    const float* plane = x + (int64_t(n) * C + c) * H * W;
    float* out = col + int64_t(c) * KH * KW * P + q;  // row r = c*KH*KW + i*KW + j
    for (int i = 0; i < KH; ++i) {
      const int h = oh * stride - pad + i;
      for (int j = 0; j < KW; ++j) {
        const int w = ow * stride - pad + j;
        const bool inside = h >= 0 && h < H && w >= 0 && w < W;
        out[(int64_t(i) * KW + j) * P] = inside ? plane[int64_t(h) * W + w] : 0.0f;
      }
    }
  }
}

// One thread per input element (n, c, h, w): a GATHER. The element was copied into
// column (n, oh, ow), row (c, i, j) for every window that covers it, i.e. every
// i = h + pad - oh*stride in [0, KH) (same for j with w). Sum those; no other thread
// writes this element, so no atomics and the order of the sum is fixed.
__global__ void col2im_kernel(const float* __restrict__ col, float* __restrict__ x, int N, int C, int H, int W,
                              int KH, int KW, int stride, int pad, int OH, int OW) {
  const int64_t P = int64_t(N) * OH * OW;
  const int64_t total = int64_t(N) * C * H * W;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int w = static_cast<int>(t % W);
    const int h = static_cast<int>((t / W) % H);
    const int c = static_cast<int>((t / (int64_t(W) * H)) % C);
    const int n = static_cast<int>(t / (int64_t(W) * H * C));
    const int hp = h + pad, wp = w + pad;  // position in the padded image
    // The windows covering row hp start at oh*stride with oh*stride <= hp < oh*stride + KH.
    const int oh_begin = hp < KH ? 0 : (hp - KH) / stride + 1;
    const int oh_end = min(hp / stride + 1, OH);
    const int ow_begin = wp < KW ? 0 : (wp - KW) / stride + 1;
    const int ow_end = min(wp / stride + 1, OW);
    float sum = 0.0f;
    for (int oh = oh_begin; oh < oh_end; ++oh) {
      const int i = hp - oh * stride;
      for (int ow = ow_begin; ow < ow_end; ++ow) {
        const int j = wp - ow * stride;
        const int64_t r = (int64_t(c) * KH + i) * KW + j;
        const int64_t q = (int64_t(n) * OH + oh) * OW + ow;
        sum += col[r * P + q];
      }
    }
    x[t] = sum;
  }
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
