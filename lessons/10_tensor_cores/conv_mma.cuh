#pragma once
// Lesson 10 (given, read-only): step 10.5's convolution on the Tensor Cores around the part you
// write (gather_window in exercises/conv_mma.cu). It is lesson 09's implicit GEMM with BF16
// operands and FP32 sums:
//
//   out[n][o][oh][ow] = sum over k of A(p, k) * B(k, o)      p = (n, oh, ow), k = (c, i, j)
//   A(p, k) = in[n][c][oh*stride - pad + i][ow*stride - pad + j]   (0 in the padding)
//   B(k, o) = W[o][c][i][j]
//
// Block: 64 output pixels x BN output channels (BN = 32 or 64), 4 warps in 2 x 2, each warp
// 32 pixels x BN/2 channels as m16 x n8 tiles in registers (10.4's mma.sync.m16n8k16). Stages of
// 32 values of k: each thread gathers 16 of them for one pixel (your gather_window) and a few
// weights, rounds them to BF16 and stores them in shared memory, k running fastest in both tiles,
// so that each lane's operand pairs are 32-bit words; while the warps multiply one stage, the next
// stage's values are already on their way into registers. K is padded with zeros to a whole stage:
// conv1's single input channel gives K = 1 x 5 x 5 = 25, multiplied as 32 (7 zeros).
//
// The input gradient is the same kernel (09.3): dx = conv(dy, W') with W'[c][o][i][j] =
// W[o][c][kh-1-i][kw-1-j], padding kh-1-pad, stride 1. The kernel reads W' straight from W
// (`flipped`): no flipped copy in memory.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "mma_gemm.cuh"

namespace tensor_cores::detail {

constexpr int kConvTileM = 64;        // output pixels a block
constexpr int kConvTileK = 32;        // values of k a stage: two mma.sync k16 steps
constexpr int kConvThreads = 128;     // 4 warps
constexpr int kConvGather = kConvTileK * kConvTileM / kConvThreads;  // 16 values of A per thread a stage
// 40 BF16 (80 bytes) a row of a tile: the 8 rows x 4 words a warp's fragment load touches land in
// 32 different banks (80 bytes = 20 words: 0, 20, 8, 28, 16, 4, 24, 12 + 0..3).
constexpr int kConvLd = kConvTileK + 8;

// A convolution as the kernel sees it: in [N][Cin][H][W] -> out [N][Cout][OH][OW], K = Cin kh kw,
// P = N OH OW output pixels.
struct ConvGemm {
  const float* in;
  const float* W;
  const float* bias;  // may be null
  float* out;
  int N, Cin, H, Wd, Cout, kh, kw, stride, pad, OH, OW, K, P;
  bool flipped;       // B(k, c) = W[o][c][kh-1-i][kw-1-j] for k = (o, i, j): W is [Cin][Cout][kh][kw] read flipped
};

// One output pixel's window: its image, the window's top-left corner (negative in the padding),
// and whether the pixel exists (the last block's rows past P do not).
struct PixelWindow {
  const float* image;
  int top, left;
  bool inside;
};

#if COURSE_WMMA
// YOUR PART (exercises/conv_mma.cu): a[q] = A(p, k_begin + q) for q < kConvGather: the input value
// under window position k = (c, i, j) of w's pixel (c = k / (kh kw), i = k / kw % kh, j = k % kw),
// or 0 when k >= K, when the position falls in the padding, or when the pixel is not inside.
__device__ void gather_window(const ConvGemm& g, const PixelWindow& w, int k_begin, float (&a)[kConvGather]);
#endif

}  // namespace tensor_cores::detail
