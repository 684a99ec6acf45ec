#pragma once
// Lesson 10 (given, read-only): step 10.7's weight gradient around the part you write
// (accumulate_image in exercises/conv_mma_tiled_weight.cu), on 10.6's image in shared memory.
//
//   dW[o][c][i][j] = sum over images n and output pixels p of  dy[n][o][p] * x[n][c][p shifted by (i, j)]
//
// For one tap (i, j) that is a GEMM with M = O, N = C and the k running over the pixels of every
// image: A = dy (row o, k = pixel), B = the image shifted by the tap (k = pixel, column c). A block
// takes one ROW i of the kernel's taps (j = 0 .. k-1) and a group of images; for each image it
// stages, as BF16,
//
//   img [H + 2 pad][W + 2 pad][C + 8]     10.6's layout: channels innermost (B, by ldmatrix .trans)
//   dys [O][P16 + 8]                       dy with the pixels innermost, zeros past the last pixel (A)
//
// Warp w owns output channels o0 = 16 (w % (O/16)) .. + 15 and input channels c0 = 16 (w / (O/16))
// .. + 15 of every tap of the row: acc[j][nt] is the m16 x n8 tile (o0.., c0 + 8 nt..) of tap (i, j).
// Each 16 pixels: one A fragment of dy (reused by every tap) and, per tap, the B fragments of its 16
// channels by one ldmatrix.x4.trans: lane l gives the address of row l % 16 (pixel k0 + l % 16, moved
// by the tap) at channel c0 + 8 (l / 16) (10.4's pattern for B stored row by row of K).
// The block's sums go to a slice of its own (partial[group][tap][o][c]; each block also sums dy's FP32
// values for the dbias rows o = i, i + k, ..); a second kernel adds the slices in a fixed order (the
// same bits every run).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "course/arithmetic.hpp"
#include "mma_gemm.cuh"

namespace tensor_cores::detail {

constexpr int kDwThreads = 256;     // 8 warps: (O / 16) x (C / 16) <= 8 of them own a 16 x 16 tile
constexpr int kDwMaxKernel = 7;     // taps in a row of the kernel
constexpr int kDwMaxChannels = 128;  // output channels (O / 16 <= 8)

struct TiledWeightGrad {
  const float* x;   // [N][C][H][W]
  const float* dy;  // [N][O][OH][OW]
  float* partial;   // [groups][k k][O][C]
  float* bias_partial;  // [groups][O]: each group's share of dbias (row o by the block of tap row o % k)
  int N, C, H, W, O, k, pad, OH, OW;
  int Hp, Wp, ldc;  // the padded image in shared memory (channels innermost, ldc = C + 8)
  int P16, ldp;     // pixels rounded up to 16; dy's row length in shared memory (P16 + 8)
  int images_per_block;  // the images a block sums (10.9)
};

// The shared memory of one block: the padded image (C + 8 channels a pixel) and dy (P16 + 8 a row).
inline size_t dw_smem_bytes(int H, int W, int pad, int C, int O, int P) {
  const int P16 = course::round_up(P, 16);
  return (size_t(H + 2 * pad) * (W + 2 * pad) * (C + 8) + size_t(O) * (P16 + 8)) * sizeof(__nv_bfloat16);
}
// What the compiler gave the kernel (its registers, for 10.9's count).
cudaFuncAttributes conv_mma_dw_kernel_attributes();

#if COURSE_WMMA
// YOUR PART (exercises/conv_mma_tiled_weight.cu): acc[j][nt] += this warp's tile of tap (i, j), for
// every j < k, over all P16 / 16 steps of 16 pixels of the staged image:
//   A (16 x 16): rows o0 + g, o0 + g + 8 of dys, columns k0 + 2t, 2t + 1 and + 8 (32-bit words)
//   B (16 x 16, two n8 tiles): ldmatrix_x4_trans, lane l at img + (pixel (k0 + l % 16) moved by
//     (i, j)) * ldc + c0 + 8 (l / 16); pixel p at (p / OW, p % OW), its row in img ((p / OW) Wp +
//     p % OW); a pixel p >= OH OW (past the image) reads pixel 0 instead (its dy is 0)
//   mma_bf16_16816(acc[j][0], a, b[0], b[1]) and (acc[j][1], a, b[2], b[3]).
__device__ void accumulate_image(const TiledWeightGrad& g, const __nv_bfloat16* img, const __nv_bfloat16* dys, int i,
                                 int o0, int c0, float (&acc)[kDwMaxKernel][2][4]);
#endif

}  // namespace tensor_cores::detail
