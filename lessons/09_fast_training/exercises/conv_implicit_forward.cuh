// Lesson 09, step 09.2: the forward convolution as an implicit GEMM. YOUR FILE: the B side of
// the gather and the epilogue (the members marked TODO); A and the launcher are written for you.
//   Y[o][p] = sum over k of W[o][k] * col[k][p]      k = (c, i, j), p = (n, oh, ow)
//   col[k][p] = x[n][c][oh*stride - pad + i][ow*stride - pad + j], 0 outside the image
// The engine (gemm_core.cuh) asks this gather for A = W (a plain row-major matrix), for B = col
// (gathered from x: never stored) and where each result goes (NCHW, plus the bias).
#pragma once
#include "conv_implicit.cuh"
#include "fast_div.cuh"

namespace fast_training {

namespace {

struct ForwardGather {
  const float *x, *W, *bias;
  float* y;
  int C, H, Wd, O, kh, kw, OH, OW, stride, pad_h, pad_w, K, P;
  FastDiv by_kernel_area, by_kw, by_out_area, by_ow;

  // ---- A = W [O x K], row-major (given) ----
  struct ACtx { const float* row; bool inside; };
  using AKey = int;
  __device__ ACtx a_row(int m) const { return {W + size_t(m < O ? m : 0) * K, m < O}; }
  __device__ AKey a_key(int k) const { return k; }
  __device__ float a_load(const ACtx& a, AKey k) const { return a.inside && k < K ? __ldg(a.row + k) : 0.0f; }

  // ---- B = col [K x P], gathered from x: YOUR PART ----
  // b_column(p): what column p needs once per block: p = (n, oh, ow) -> its image and the
  //   top-left corner (oh * stride - pad_h, ow * stride - pad_w) of its window; inside = p < P.
  // b_key_entry(k): k = (c, i, j) packed into an int2 for the key table (b_key unpacks it).
  // b_load: col[k][p], 0 where the window element lies in the padding (then read nothing) or
  //   k or p is outside the matrix. Split indices with the FastDiv members, not / and %.
  // store(o, p, value): y[n][o][oh][ow] = value + bias[o] (bias may be null: no bias).
  struct BCtx { const float* image; int top, left; bool inside; };
  __device__ BCtx b_column(int p) const {
    // TODO(09.2): split p, return the column's image, window corner and inside flag.
    (void)p;
    return {x, 0, 0, false};
  }
  static constexpr bool kKeyTable = true;
  __device__ int2 b_key_entry(int k) const {
    // TODO(09.2): pack what b_load needs of k = (c, i, j): e.g. c*H*W + i*W + j and (i, j).
    (void)k;
    return make_int2(0, 0);
  }
  struct BKey { int offset, i, j; bool inside; };
  __device__ BKey b_key(int k, const int2* table) const {
    // TODO(09.2): unpack table[k] (written by b_key_entry); k >= K: inside = false.
    (void)k, (void)table;
    return {0, 0, 0, false};
  }
  __device__ float b_load(const BCtx& b, const BKey& k) const {
    // TODO(09.2): col[k][p] or 0.
    (void)b, (void)k;
    return 0.0f;
  }

  // ---- the epilogue ----
  __device__ void store(int o, int p, float value) const {
    // TODO(09.2): scatter Y[o][p] to NCHW and add the bias.
    (void)o, (void)p, (void)value;
  }
};

// Given: builds the gather, picks the tile by M = O and launches the engine, each stage multiplied
// by the math policy Math (gemm_core.cuh).
template <template <class> class Math>
void forward_gemm(const detail::ConvGeometry& c, const float* x, const float* W, const float* bias, float* y,
                  cudaStream_t stream) {
  const int K = c.C * c.kh * c.kw, P = c.N * c.OH * c.OW;
  const ForwardGather g{x, W, bias, y, c.C, c.H, c.W, c.O, c.kh, c.kw, c.OH, c.OW, c.stride, c.pad_h, c.pad_w, K, P,
                        FastDiv(c.kh * c.kw), FastDiv(c.kw), FastDiv(c.OH * c.OW), FastDiv(c.OW)};
  if (c.O <= detail::ForwardTileNarrow::BM)
    launch_implicit_gemm<detail::ForwardTileNarrow, Math>(g, c.O, P, K, K, stream);
  else
    launch_implicit_gemm<detail::ForwardTileWide, Math>(g, c.O, P, K, K, stream);
}

// Given: conv2d_forward_implicit (fast_training.hpp) with its stages in Math.
template <template <class> class Math>
void conv_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                  cudaStream_t stream) {
  detail::check_conv_shape(s, "conv2d_forward_implicit");
  forward_gemm<Math>(detail::geometry_of(s), x, W, bias, y, stream);
}

}  // namespace
}  // namespace fast_training
