// Lesson 09, step 09.2: the forward convolution as an implicit GEMM.
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

  // ---- B = col [K x P], gathered from x ----
  // Per column p (once per block): its image and the top-left corner of its window.
  struct BCtx { const float* image; int top, left; bool inside; };
  __device__ BCtx b_column(int p) const {
    const int q = p < P ? p : 0;
    const int n = by_out_area.div(q), pixel = q - n * OH * OW;
    const int oh = by_ow.div(pixel), ow = pixel - oh * OW;
    return {x + size_t(n) * C * H * Wd, oh * stride - pad_h, ow * stride - pad_w, p < P};
  }
  // Per k (once per block, into the key table): (c, i, j) as the offset c*H*W + i*W + j of the
  // window's element from its corner, and i, j for the bounds test.
  static constexpr bool kKeyTable = true;
  __device__ int2 b_key_entry(int k) const {
    const int c = by_kernel_area.div(k), r = k - c * kh * kw;
    const int i = by_kw.div(r), j = r - i * kw;
    return make_int2((c * H + i) * Wd + j, i << 16 | j);
  }
  struct BKey { int offset, i, j; bool inside; };
  __device__ BKey b_key(int k, const int2* table) const {
    if (k >= K) return {0, 0, 0, false};
    const int2 e = table[k];
    return {e.x, e.y >> 16, e.y & 0xffff, true};
  }
  __device__ float b_load(const BCtx& b, const BKey& k) const {
    const int h = b.top + k.i, w = b.left + k.j;
    // Padding: outside the image the value is 0 (and nothing is read).
    const bool inside = b.inside && k.inside && unsigned(h) < unsigned(H) && unsigned(w) < unsigned(Wd);
    return inside ? __ldg(b.image + k.offset + b.top * Wd + b.left) : 0.0f;
  }

  // ---- the epilogue: Y[o][p] to y[n][o][oh][ow], plus bias[o] ----
  __device__ void store(int o, int p, float value) const {
    const int n = by_out_area.div(p), pixel = p - n * OH * OW;
    y[(size_t(n) * O + o) * OH * OW + pixel] = bias ? value + __ldg(bias + o) : value;
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
