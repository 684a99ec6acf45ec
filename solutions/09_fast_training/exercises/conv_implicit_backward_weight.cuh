// Lesson 09, step 09.4: dW and dbias as one implicit GEMM with a split reduction.
//   dW[o][k] = sum over p of dY[o][p] * col[k][p]      k = (c, i, j) < Kc, p = (n, oh, ow) < P
//   dbias[o] = sum over p of dY[o][p] * 1              the column k = Kc of B is all ones
// A = dY [O x P] read from dy [N, O, OH, OW]; B(p, k) = col[k][p] gathered from x. Both are
// read along p (the reduction): neighbouring p are neighbouring pixels in memory.
// The reduction is long (N*OH*OW) and the output small (O x Kc+1), so blockIdx.z takes a slice
// of p and the store writes that slice's partial sums; detail::sum_weight_slices adds them.
#pragma once
#include "conv_implicit.cuh"
#include "fast_div.cuh"

namespace fast_training {

namespace {

struct WeightGather {
  const float *x, *dy;
  float* partial;  // [slices][O][Kc + 1]
  int C, H, Wd, O, kh, kw, OH, OW, stride, pad, Kc, P;
  FastDiv by_kernel_area, by_kw, by_out_area, by_ow;

  // ---- A = dY [O x P]: row o, column p = (n, pixel) at dy[n][o][pixel] ----
  struct ACtx { int o; bool inside; };
  struct AKey { size_t offset; bool inside; };  // n*O*OH*OW + pixel
  __device__ ACtx a_row(int o) const { return {o < O ? o : 0, o < O}; }
  __device__ AKey a_key(int p) const {
    const int q = p < P ? p : 0;
    const int n = by_out_area.div(q), pixel = q - n * OH * OW;
    return {size_t(n) * O * OH * OW + pixel, p < P};
  }
  __device__ float a_load(const ACtx& a, const AKey& k) const {
    return a.inside && k.inside ? __ldg(dy + k.offset + size_t(a.o) * OH * OW) : 0.0f;
  }

  // ---- B(p, k) = col[k][p]: per column k its (c, i, j), per p its image and window corner ----
  struct BCtx { int offset, i, j; bool inside, ones; };  // offset c*H*W + i*W + j
  __device__ BCtx b_column(int k) const {
    const int q = k < Kc ? k : 0;
    const int c = by_kernel_area.div(q), r = q - c * kh * kw;
    const int i = by_kw.div(r), j = r - i * kw;
    return {(c * H + i) * Wd + j, i, j, k < Kc, k == Kc};
  }
  static constexpr bool kKeyTable = false;
  struct BKey { size_t image; int top, left; bool inside; };
  __device__ BKey b_key(int p) const {
    const int q = p < P ? p : 0;
    const int n = by_out_area.div(q), pixel = q - n * OH * OW;
    const int oh = by_ow.div(pixel), ow = pixel - oh * OW;
    return {size_t(n) * C * H * Wd, oh * stride - pad, ow * stride - pad, p < P};
  }
  __device__ float b_load(const BCtx& b, const BKey& k) const {
    if (!k.inside) return 0.0f;
    if (b.ones) return 1.0f;  // the bias column
    const int h = k.top + b.i, w = k.left + b.j;
    const bool inside = b.inside && unsigned(h) < unsigned(H) && unsigned(w) < unsigned(Wd);
    return inside ? __ldg(x + k.image + b.offset + k.top * Wd + k.left) : 0.0f;
  }

  // ---- the epilogue: this slice's partial sum ----
  __device__ void store(int o, int k, float value) const {
    partial[(size_t(blockIdx.z) * O + o) * (Kc + 1) + k] = value;
  }
};

// Given: conv2d_backward_weight_implicit (fast_training.hpp) with the GEMM's stages in Math: checks
// the shape, cuts the reduction into slices, launches the engine, adds the slices.
template <template <class> class Math>
void conv_backward_weight(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                          float* workspace, cudaStream_t stream) {
  detail::check_conv_shape(s, "conv2d_backward_weight_implicit");
  const int Kc = s.in_channels * s.kernel_h * s.kernel_w, P = s.batch * s.out_h() * s.out_w();
  const WeightGather g{x, dy, workspace, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.kernel_w,
                       s.out_h(), s.out_w(), s.stride, s.pad, Kc, P, FastDiv(s.kernel_h * s.kernel_w),
                       FastDiv(s.kernel_w), FastDiv(s.out_h() * s.out_w()), FastDiv(s.out_w())};
  // Slices of `chunk` pixels each; the rounding of chunk up to whole stages may leave fewer.
  const bool wide = s.out_channels > detail::WeightTileNarrow::BM;
  const int chunk = detail::slice_length(P, detail::weight_gemm_slices(s), detail::WeightTileWide::BK);
  const int slices = int(blocks_of(P, chunk));
  if (wide)
    launch_implicit_gemm<detail::WeightTileWide, Math>(g, s.out_channels, Kc + 1, P, chunk, stream);
  else
    launch_implicit_gemm<detail::WeightTileNarrow, Math>(g, s.out_channels, Kc + 1, P, chunk, stream);
  detail::sum_weight_slices(workspace, slices, s.out_channels, Kc, dW, dbias, stream);
}

}  // namespace
}  // namespace fast_training
