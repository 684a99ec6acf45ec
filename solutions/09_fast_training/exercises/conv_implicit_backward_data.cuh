// Lesson 09, step 09.3: dx as a forward convolution of dy (stride 1).
// y[o][h][w] takes x[c][h - pad + i][w - pad + j] with weight W[o][c][i][j]; so x[c][a][b] sends
// W[o][c][i][j] * dy[o][a + pad - i][b + pad - j] back. Written with i' = kh-1-i, j' = kw-1-j:
//   dx[c][a][b] = sum over o, i', j' of W'[c][o][i'][j'] * dy[o][a - (kh-1-pad) + i'][b - (kw-1-pad) + j']
// a forward convolution of dy with W' (flipped, channels swapped) and padding kh-1-pad, kw-1-pad.
#pragma once
#include <algorithm>
#include <string>

#include "conv_implicit.cuh"
#include "conv_implicit_forward.cuh"  // forward_gemm (09.2)
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {
namespace {

// W' [C, O, kh, kw] from W [O, C, kh, kw]: W'[c][o][kh-1-i][kw-1-j] = W[o][c][i][j]. One thread per
// element of W (a grid-stride loop); reads are coalesced, writes land in runs of kw.
__global__ void flip_kernel(const float* W, float* flipped, int O, int C, int kh, int kw) {
  const long long count = 1LL * O * C * kh * kw;
  for (long long e = blockIdx.x * 1LL * blockDim.x + threadIdx.x; e < count; e += 1LL * gridDim.x * blockDim.x) {
    const int j = int(e % kw), i = int(e / kw % kh), c = int(e / (kw * kh) % C), o = int(e / (1LL * kw * kh * C));
    flipped[((size_t(c) * O + o) * kh + (kh - 1 - i)) * kw + (kw - 1 - j)] = W[e];
  }
}

// conv2d_backward_data_implicit (fast_training.hpp) with the GEMM's stages in Math.
template <template <class> class Math>
void conv_backward_data(const ConvShape& s, const float* W, const float* dy, float* dx, float* workspace,
                        cudaStream_t stream) {
  detail::check_conv_shape(s, "conv2d_backward_data_implicit");
  if (s.stride != 1)
    throw course::Error("conv2d_backward_data_implicit: stride " + std::to_string(s.stride) +
                        " (the flipped forward convolution needs stride 1; lesson 07 handles any stride)");
  const int count = int(s.weight_size());
  flip_kernel<<<std::min(blocks_of(count, 256), 4096u), 256, 0, stream>>>(W, workspace, s.out_channels, s.in_channels,
                                                                 s.kernel_h, s.kernel_w);
  CUDA_CHECK_LAUNCH();
  // dy is the input (O channels, OH x OW), dx the output (C channels, H x W).
  const detail::ConvGeometry flipped{s.batch,    s.out_channels,        s.out_h(),  s.out_w(),
                                     s.in_channels, s.kernel_h,         s.kernel_w, 1,
                                     s.kernel_h - 1 - s.pad, s.kernel_w - 1 - s.pad, s.height, s.width};
  forward_gemm<Math>(flipped, dy, workspace, nullptr, dx, stream);
}

}  // namespace
}  // namespace fast_training
