#pragma once
// Lesson 07: convolution as matrix multiplication (im2col + GEMM).
//
// im2col copies every input window a convolution looks at into one COLUMN of a
// matrix `col`; the convolution then is a single GEMM, W [O x C*kh*kw] * col.
// The course uses one batched column layout everywhere (CPU and GPU):
//
//   col has  K = C*kh*kw  rows  and  P = N*OH*OW  columns (row-major, K x P):
//     row    r = (c*kh + i)*kw + j          (input channel c, kernel row i, kernel column j)
//     column q = (n*OH + oh)*OW + ow        (image n, output position (oh, ow))
//     col[r][q] = x[n][c][oh*stride - pad + i][ow*stride - pad + j], or 0 outside the image.
//
// The row index matches the flattening of the weights W [O, C, kh, kw] seen as an
// O x K matrix, so W * col needs no reshuffling of W.
//
// col2im is the ADJOINT of im2col: dx[n][c][h][w] = the sum of every col[r][q] that
// im2col would have read from x[n][c][h][w]. Where windows overlap (stride < kernel),
// one input element feeds several columns and their values add up.
//
// CPU functions take host pointers; *_gpu and conv2d_*_gemm take DEVICE pointers,
// run on the default stream and return without waiting for the GPU.
// Backward functions OVERWRITE their outputs (dx, dW, dbias), like lesson 01.
#include <cstddef>

#include "host_layers.hpp"

namespace im2col {

using host_layers::ConvShape;

// Rows (C*kh*kw), columns (N*OH*OW) and element count of the column matrix.
inline size_t col_rows(const ConvShape& s) { return size_t(s.in_channels) * s.kernel_h * s.kernel_w; }
inline size_t col_cols(const ConvShape& s) { return size_t(s.batch) * s.out_h() * s.out_w(); }
inline size_t col_size(const ConvShape& s) { return col_rows(s) * col_cols(s); }

// ---- 07.1 im2col / col2im on the host ------------------------------------------------
// x [N, C, H, W] -> col [C*kh*kw x N*OH*OW]; every element of col is written.
template <typename T>
void im2col_cpu(const ConvShape& s, const T* x, T* col);
// col [C*kh*kw x N*OH*OW] -> x [N, C, H, W], accumulating overlaps; every element of x is written.
template <typename T>
void col2im_cpu(const ConvShape& s, const T* col, T* x);

// ---- 07.2 im2col / col2im on the GPU (device pointers) -----------------------------------
// Same layouts and results as the CPU versions. col2im_gpu is a gather (each thread
// owns one input element and sums the columns that read it): no atomics, deterministic.
void im2col_gpu(const ConvShape& s, const float* x, float* col);
void col2im_gpu(const ConvShape& s, const float* col, float* x);

// ---- workspace of the GEMM convolution ---------------------------------------------------
// Floats of scratch memory conv2d_forward_gemm and conv2d_backward_gemm need:
//   col    K x P   (K = C*kh*kw, P = N*OH*OW)   the unrolled input; backward reuses
//                                              this space for dcol once dW is done
//   Y'     O x P                                forward: W * col before the final permute;
//                                              backward: dy permuted to (O, N*OH*OW)
// It is the extra memory im2col costs over a direct convolution.
inline size_t conv_gemm_workspace_floats(const ConvShape& s) {
  return col_size(s) + size_t(s.out_channels) * col_cols(s);
}

// ---- 07.3 forward as im2col + GEMM ------------------------------------------------------
// x [N, C, H, W], W [O, C, kh, kw], bias [O] -> y [N, O, OH, OW].
// workspace: conv_gemm_workspace_floats(s) floats, contents on entry do not matter.
void conv2d_forward_gemm(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                         float* workspace);

// ---- 07.4 backward as GEMMs + col2im ----------------------------------------------------
// Given dy [N, O, OH, OW]: dx [N, C, H, W], dW [O, C, kh, kw], dbias [O] (all overwritten).
// workspace: conv_gemm_workspace_floats(s) floats, contents on entry do not matter.
void conv2d_backward_gemm(const ConvShape& s, const float* x, const float* W, const float* dy, float* dx,
                          float* dW, float* dbias, float* workspace);

}  // namespace im2col
