#pragma once
// Lesson 10 (given, read-only): step 10.6's convolution around the part you write
// (accumulate_taps in exercises/conv_mma_tiled.cu): the image in shared memory, channels last.
//
// 10.5 gathers every input value once for each window position over it (25 times for 5 x 5). Here a
// block holds ONE IMAGE in shared memory, padded, as BF16, with the channels innermost, and all the
// weights, and computes every output pixel and channel of that image from there:
//
//   img [H + 2 pad][W + 2 pad][kLdc]    kLdc = C + 8: channel c of pixel (h, w) at (h Wp + w) ldc + c
//   wts [kh kw][O][C + 8]               tap t = i kw + j: wts[t][o][c] = W[o][c][i][j] (BF16)
//
// With the channels innermost, the convolution is a sum over the taps (i, j) of small GEMMs:
//
//   out[p][o] += sum over c of img[pixel p shifted by (i, j)][c] * wts[(i, j)][o][c]
//
// and in one mma.sync.m16n8k16 the 16 values of k are 16 channels of one tap: a lane's operand pair
// A[g][2t, 2t+1] is two neighbouring channels of one pixel, one 32-bit word of shared memory, and its
// B pair wts[tap][o][2t, 2t+1] too. The +8 channels of padding put the 8 pixels (or output channels) a
// fragment load touches in 8 different groups of 4 banks.
//
// Block: 8 warps, one image; warp w owns the m16 tiles w and w + 8 of the image's output pixels
// (row-major, 16 pixels a tile; rows past the last pixel read pixel 0 and are not stored) and all
// the output channels (up to 64: 8 n8 tiles). The input gradient is the same kernel on 09.3's flipped
// convolution, with the weights laid out flipped by conv_mma_tiled_weights.
//
// An image of more than 256 output pixels (16 tiles, what 8 warps own) is cut into bands of whole
// output rows, each at most 256 pixels (tiled_band_rows; a band a block, blockIdx.z): the block
// holds only the input rows its band reads (band_rows + k - 1 padded rows), and to the taps a band
// is an image of its own.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "mma_gemm.cuh"

namespace tensor_cores::detail {

constexpr int kTiledConvThreads = 256;  // 8 warps
constexpr int kTiledConvMaxTilesN = 8;  // up to 64 output channels
constexpr int kTiledConvMaxTilesM = 16;  // up to 256 output pixels a block: two m16 tiles a warp

// One convolution as the kernel sees it (stride 1, square kernel k, `pad` may be 0 .. k - 1).
struct TiledConv {
  const float* in;               // [N][C][H][W]
  const __nv_bfloat16* weights;  // [k k][O][C]: this pass's layout (conv_mma_tiled_weights)
  const float* bias;             // may be null
  float* out;                    // [N][O][OH][OW]
  int N, C, H, W, O, k, pad, OH, OW;
  int Hp, Wp, ldc;               // the padded rows in shared memory: Hp x Wp pixels of ldc channels
  int band_rows;                 // output rows a block (Hp = band_rows + k - 1); OH: the whole image
  // May be null. Else each block also writes, for every output channel o it computes, the count, the
  // mean and the squares around that mean of its values (bias included) to stats + 3 (o entries + e),
  // entries = N bands, e = n bands + band: what a normalisation after the conv needs, from the
  // accumulators, without reading out again.
  float* stats = nullptr;
};

// The output rows of a block: all OH when the image has at most 256 output pixels, else bands of
// equal height (the last may be shorter) of at most 256 pixels each; 0 when one row is longer.
inline int tiled_band_rows(int out_h, int out_w) {
  if (out_h < 1 || out_w < 1) return 0;
  const int most = 16 * kTiledConvMaxTilesM / out_w;  // whole rows in 256 pixels
  if (most < 1) return 0;
  const int bands = (out_h + most - 1) / most;
  return (out_h + bands - 1) / bands;
}

// The shared memory of one block: the padded image and every tap's weights of its O output channels.
inline size_t tiled_smem_bytes(int Hp, int Wp, int ldc, int k, int O) {
  return (size_t(Hp) * Wp * ldc + size_t(k) * k * O * ldc) * sizeof(__nv_bfloat16);
}
// What the compiler gave the kernel of n_tiles n8 tiles (its registers, for 10.9's count). The
// kernel is compiled once for each count (1 .. 8), so a pass with few output channels keeps only the
// accumulators it uses: fewer registers, more blocks on an SM. `stats`: its twin that also writes the
// statistics (TiledConv::stats), which may need more.
cudaFuncAttributes conv_mma_tiled_kernel_attributes(int n_tiles, bool stats = false);

// The staging's walk: a flat index over [A][B][C] (row-major), moved by the block's thread count at
// each step. Its digits (a, b, c) are kept by adds and a compare each; dividing for them at every
// step would cost tens of instructions a value, more than moving the value.
struct StagingWalk {
  int a, b, c;     // the digits now (a >= A: the walk is over)
  int da, db, dc;  // the step's digits
  int nb, nc;      // B, C
  __device__ StagingWalk(int start, int step, int B, int C) : nb(B), nc(C) {
    a = start / (B * C), b = start / C % B, c = start % C;
    da = step / (B * C), db = step / C % B, dc = step % C;
  }
  __device__ void next() {
    a += da, b += db, c += dc;
    if (c >= nc) c -= nc, ++b;  // each digit at most one over: one subtraction
    if (b >= nb) b -= nb, ++a;
  }
};

// Stages the values of a walk over [A][..][..] in rounds of kRound steps: a round's loads first, then
// its stores. A thread that stores each value before it loads the next waits for memory at every value.
// fetch(at, v) loads the values at `at` into v and returns where they go (-1: nowhere); put(to, v)
// stores them.
template <int kRound, class V, class Fetch, class Put>
__device__ void stage_in_rounds(StagingWalk at, int A, Fetch fetch, Put put) {
  while (at.a < A) {
    V v[kRound];
    int to[kRound];
#pragma unroll
    for (int u = 0; u < kRound; ++u, at.next()) to[u] = at.a < A ? fetch(at, v[u]) : -1;
#pragma unroll
    for (int u = 0; u < kRound; ++u)
      if (to[u] >= 0) put(to[u], v[u]);
  }
}

#if COURSE_WMMA
// YOUR PART (exercises/conv_mma_tiled.cu): for every tap (i, j) of the k x k kernel and every 16
// channels c0 = 0, 16, .. C - 16: acc[mi][nt] += A_mi x B_nt by mma_bf16_16816, for mi < tiles (this
// warp's m16 tiles) and nt < n_tiles (= O / 8), where
//   A_mi: rows = the tile's 16 pixels shifted by (i, j): row g of the fragment at
//         img + pixel[mi][0] + (i Wp + j) ldc, row g + 8 at img + pixel[mi][1] + (i Wp + j) ldc
//         (pixel[mi][h]: this lane's row g + 8 h of tile mi, as an offset into img), columns
//         c0 + 2t, 2t + 1 (a0, a1) and c0 + 2t + 8, 2t + 9 (a2, a3)
//   B_nt: wts + ((i k + j) O + 8 nt + g) ldc + c0 + 2t, 2t + 1 (b0) and + 8 (b1)
// (g = lane / 4, t = lane % 4, each pair one 32-bit word: see mma_gemm.cuh for the registers).
__device__ void accumulate_taps(const TiledConv& g, const __nv_bfloat16* img, const __nv_bfloat16* wts,
                                const int (&pixel)[2][2], int tiles, int n_tiles,
                                float (&acc)[2][kTiledConvMaxTilesN][4]);
#endif

}  // namespace tensor_cores::detail
