// Lesson 09, step 09.4: dW and dbias as one implicit GEMM with a split reduction. YOUR FILE: the
// gather (the members marked TODO); the launcher and the slice sum are written for you.
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

  // YOUR PART (TODO(09.4)): both operands and the epilogue, in the engine's interface
  // (gemm_core.cuh). A = dY: a_row(o), a_key(p), a_load -> dy[n][o][pixel] for p = (n, pixel),
  // 0 outside [0, O) x [0, P). B: b_column(k) for k <= Kc (k == Kc is the bias column: all ones),
  // b_key(p) once per stage, b_load -> x[n][c][oh*stride - pad + i][ow*stride - pad + j] for
  // k = (c, i, j), 0 in the padding or outside [0, P). store(o, k, v): partial[z][o][k] with
  // z = blockIdx.z (the slice), row pitch Kc + 1. Split indices with the FastDiv members.
  struct ACtx { int o; bool inside; };
  struct AKey { size_t offset; bool inside; };
  __device__ ACtx a_row(int o) const {
    // TODO(09.4): row o of dY.
    (void)o;
    return {0, false};
  }
  __device__ AKey a_key(int p) const {
    // TODO(09.4): where pixel p = (n, oh, ow) of channel 0 lies in dy.
    (void)p;
    return {0, false};
  }
  __device__ float a_load(const ACtx& a, const AKey& k) const {
    // TODO(09.4): dY[o][p] or 0.
    (void)a, (void)k;
    return 0.0f;
  }
  struct BCtx { int offset, i, j; bool inside, ones; };
  __device__ BCtx b_column(int k) const {
    // TODO(09.4): column k = (c, i, j) of B, or the bias column k == Kc.
    (void)k;
    return {0, 0, 0, false, false};
  }
  static constexpr bool kKeyTable = false;
  struct BKey { size_t image; int top, left; bool inside; };
  __device__ BKey b_key(int p) const {
    // TODO(09.4): pixel p = (n, oh, ow): its image and window corner.
    (void)p;
    return {0, 0, 0, false};
  }
  __device__ float b_load(const BCtx& b, const BKey& k) const {
    // TODO(09.4): col[k][p], 1 in the bias column, 0 in the padding or outside.
    (void)b, (void)k;
    return 0.0f;
  }
  __device__ void store(int o, int k, float value) const {
    // TODO(09.4): this slice's partial sum.
    (void)o, (void)k, (void)value;
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
