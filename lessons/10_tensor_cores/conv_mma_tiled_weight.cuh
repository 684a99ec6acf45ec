#pragma once
// Lesson 10 (given, read-only): step 10.7's weight gradient around the part you write
// (accumulate_image in exercises/conv_mma_tiled_weight.cu), on 10.6's image in shared memory.
//
//   dW[o][c][i][j] = sum over images n and output pixels p of  dy[n][o][p] * x[n][c][p shifted by (i, j)]
//
// For one tap (i, j) that is a GEMM with M = O, N = C and the k running over the pixels of every
// image: A = dy (row o, k = pixel), B = the image shifted by the tap (k = pixel, column c). A warp
// takes one ROW i of the kernel's taps (j = 0 .. k-1), a block 8 warps and a group of images; for
// each image the block stages, as BF16,
//
//   img [Hp][W + 2 pad][C + 8]            10.6's layout: channels innermost (B, by ldmatrix .trans);
//                                          Hp = H + 2 pad, or a piece's rows + k - 1 (below)
//   dys [O][bands x P16 + 8]               dy with the pixels innermost, band after band, each band's
//                                          pixels padded with zeros to P16 (one band: the image) (A)
//
// A warp owns one 16 x 16 tile of (o, c) for every tap of one row i of the kernel: output channels
// o0 = 16 (t % (O/16)) .. + 15 and input channels c0 = 16 (t / (O/16)) .. + 15 of tile t; acc[j][nt]
// is the m16 x n8 tile (o0.., c0 + 8 nt..) of tap (i, j). The tiles x k rows go to the block's 8
// warps, and to more blocks where there are more (blockIdx.y, 8 each: every block stages the image).
// Where tiles x k leaves warps free (16 channels), the output rows are cut into bands (DwPlan): a warp
// takes a tile and row over one band, seeing the band as an image of its own (dy staged band after
// band, each padded with zeros to 16 pixels), and the warps of a tile and row add their sums in band
// order at the end (the same bits every run). A large image is also cut into pieces of whole output
// rows, a block a piece, each staging only the input rows its piece reads (its own slice, so the
// pieces add up in the fixed-order sum).
// Each 16 pixels: one A fragment of dy (reused by every tap) and, per tap, the B fragments of its 16
// channels by one ldmatrix.x4.trans: lane l gives the address of row l % 16 (pixel k0 + l % 16, moved
// by the tap) at channel c0 + 8 (l / 16) (10.4's pattern for B stored row by row of K).
// The block's sums go to a slice of its own (partial[group x pieces + piece][tap][o][c]; each block
// also sums dy's FP32 values for the dbias rows o = i, i + k, ..); a second kernel adds the slices in
// a fixed order (the same bits every run).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "conv_mma_tiled.cuh"  // 10.6's StagingWalk
#include "course/arithmetic.hpp"
#include "mma_gemm.cuh"

namespace tensor_cores::detail {

constexpr int kDwWarps = 8, kDwThreads = 32 * kDwWarps;  // a warp a 16 x 16 tile (and band)
constexpr int kDwMaxKernel = 7;      // taps in a row of the kernel
constexpr int kDwMaxChannels = 128;  // output channels (dbias's sums in shared memory)
constexpr int kDwMaxPixels = 256;  // output pixels an image, unless cut into bands

// How the work is shared: tiles of (o, c) x the kernel's k rows x bands of output rows, 8 a block;
// pieces of an image's output rows, a block (or a set of blocks) a piece.
struct DwPlan {
  int tiles = 1;       // (O / 16) (C / 16)
  int pieces = 1;      // blocks an image's output rows are cut into, each staging only the rows it reads
  int piece_rows = 1;  // output rows a piece (the last may have fewer)
  int band_rows = 1;   // output rows a band of a piece (the last band may have fewer)
  int bands = 1;       // bands a piece: more than 1 only while tiles x k x bands <= 8 (one block)
  int band16 = 16;     // a band's pixels rounded up to 16: its share of dy's row in shared memory
  int sets = 1;        // blocks a piece of a group of images (blockIdx.y): ceil(tiles x k x bands / 8)
};
inline DwPlan dw_plan(int O, int C, int k, int OH, int OW) {
  DwPlan d;
  d.tiles = (O / 16) * (C / 16);
  const int per_band = std::max(d.tiles * k, 1);
  const int most_bands = per_band < kDwWarps ? std::max(1, std::min(OH, kDwWarps / per_band)) : 1;
  // With bands, an image is cut into pieces of most_bands bands of at most kDwMaxPixels pixels each, a
  // block a piece: 28 x 28 at 16 channels is two pieces of 14 rows, each two bands of 7, each block
  // staging 16 of the image's 30 padded rows (one block an image would leave most SMs idle).
  const int piece_rows = most_bands > 1 ? most_bands * std::max(1, kDwMaxPixels / std::max(OW, 1)) : OH;
  // At least 1 row: conv_mma_weight_problem asks for the plan of any shape, an empty output too.
  d.pieces = course::ceil_div(OH, std::max(1, std::min(OH, piece_rows)));
  d.piece_rows = course::ceil_div(OH, d.pieces);  // pieces of even size
  d.band_rows = std::max(1, course::ceil_div(d.piece_rows, most_bands));
  d.bands = course::ceil_div(d.piece_rows, d.band_rows);
  d.band16 = course::round_up(d.band_rows * OW, 16);
  d.sets = course::ceil_div(per_band * d.bands, kDwWarps);
  return d;
}

struct TiledWeightGrad {
  const float* x;   // [N][C][H][W]
  const float* dy;  // [N][O][OH][OW]
  float* partial;   // [groups x pieces][k k][O][C]
  float* bias_partial;  // [groups x pieces][O]: each block's share of dbias (row o by the block of set o % sets)
  int N, C, H, W, O, k, pad, OH, OW;
  int Hp, Wp, ldc;  // a piece's rows of the padded image in shared memory (channels innermost, ldc = C + 8)
  int P16, ldp;     // a band's pixels rounded up to 16; dy's row length in shared memory (bands x P16 + 8)
  int images_per_block;  // the images a block sums (10.9)
  int band_rows, bands;  // DwPlan's
  int piece_rows, pieces;  // DwPlan's: blockIdx.x = group x pieces + piece
};

// The shared memory of one block: its piece's rows of the padded image (C + 8 channels a pixel), dy (a
// row: every band's pixels, each rounded up to 16, + 8) and, with bands, every warp's sums for the
// fixed-order add.
inline size_t dw_smem_bytes(int W, int pad, int C, int O, int k, const DwPlan& d) {
  const size_t bf16s = size_t(d.piece_rows + k - 1) * (W + 2 * pad) * (C + 8) + size_t(O) * (d.bands * d.band16 + 8);
  const size_t sums = d.bands > 1 ? size_t(kDwThreads) * k * 8 : 0;  // acc[j][2][4] of every lane
  return course::round_up(bf16s * sizeof(__nv_bfloat16), size_t(16)) + sums * sizeof(float);
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
