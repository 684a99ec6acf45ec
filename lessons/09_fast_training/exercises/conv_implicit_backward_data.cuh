// Lesson 09, step 09.3: dx as a forward convolution of dy (stride 1). YOUR FILE.
// y[o][h][w] takes x[c][h - pad + i][w - pad + j] with weight W[o][c][i][j]; so x[c][a][b] sends
// W[o][c][i][j] * dy[o][a + pad - i][b + pad - j] back. Written with i' = kh-1-i, j' = kw-1-j:
//   dx[c][a][b] = sum over o, i', j' of W'[c][o][i'][j'] * dy[o][a - (kh-1-pad) + i'][b - (kw-1-pad) + j']
// a forward convolution of dy with W' (flipped, channels swapped) and padding kh-1-pad, kw-1-pad.
#pragma once
#include "conv_implicit.cuh"
#include "conv_implicit_forward.cuh"  // forward_gemm (09.2)
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {
namespace {

// W' [C, O, kh, kw] from W [O, C, kh, kw]: W'[c][o][kh-1-i][kw-1-j] = W[o][c][i][j], every
// element of W' written once. Launched with any grid: loop over the elements (grid-stride).
__global__ void flip_kernel(const float* W, float* flipped, int O, int C, int kh, int kw) {
  // TODO(09.3): the flip and channel swap.
  (void)W, (void)flipped, (void)O, (void)C, (void)kh, (void)kw;
}

// conv2d_backward_data_implicit (fast_training.hpp) with the GEMM's stages in Math.
template <template <class> class Math>
void conv_backward_data(const ConvShape& s, const float* W, const float* dy, float* dx, float* workspace,
                        cudaStream_t stream) {
  // TODO(09.3): check the shape (detail::check_conv_shape); stride != 1 throws course::Error naming
  // the stride; flip W into the workspace (flip_kernel on `stream`, checked); then dx is 09.2's
  // GEMM (forward_gemm<Math>) over the geometry of the flipped convolution: input dy
  // (O channels, OH x OW), output dx (C channels, H x W), stride 1, padding kh-1-pad and kw-1-pad,
  // no bias.
  (void)s, (void)W, (void)dy, (void)dx, (void)workspace, (void)stream;
  course::todo("09.3", "conv2d_backward_data_implicit");
}

}  // namespace
}  // namespace fast_training
