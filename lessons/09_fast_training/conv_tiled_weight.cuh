#pragma once
// Lesson 09 (given, read-only): the tiled weight gradient of step 09.11 around the part you write
// (accumulate_weight_unit in exercises/conv_tiled_weight.cu).
//
//   dW[o][c][i][j] = sum over images n and outputs (oh, ow) of dy[n][o][oh][ow] * xpad[n][c][oh + i][ow + j]
//
// One block: kBlockO output channels o x kChunkC input channels c, and a slice of the images.
// Thread (cc, i, og) keeps dW[og's kTileO channels][cc][i][0 .. k-1] in registers: kTileO x k sums.
// The block goes through its images in units (one image, `rows` output rows): each unit's x rows
// (with their padding) and dy rows go through shared memory, in two buffers, the next unit's
// fetched into registers while this one computes (as 09.10). Each slice's sums go to
// partial[slice][o][c*k*k + i*k + j] (and dbias to column C*k*k), added in a fixed order by 09.4's
// slice sum: the same bits on every run.
//
// Shared memory of one buffer:
//   xs  [kChunkC][rows + k - 1][sw]     x rows r0 - pad .. with their padding, as 09.10 (sw =
//                                       segs * kTileP + k - 1)
//   dys [rows][segs * kTileP][kDyStride]  dy transposed: for output (oh, ow) the block's kBlockO
//                                       channels side by side (a thread reads its kTileO as one
//                                       float4); zeros past the image's last row and column
// kDyStride = kBlockO + 4: rows of 36 floats put the float4 of 8 neighbouring pixels into 8
// different groups of banks when they are stored.
#include <cuda_runtime.h>

#include "conv_tiled.cuh"

namespace fast_training::detail {

constexpr int kDyStride = kBlockO + 4;
constexpr int kMaxStagedXWeight = 9;    // x floats a thread may fetch per unit (model A conv2: 8.1)
constexpr int kMaxStagedDy = 5;         // dy float4 a thread may fetch per unit (model A conv2: 4.9)
constexpr int kTiledWeightBlocks = 256;  // slices of the images: about this many blocks
constexpr int kTiledWeightBlocksPerSM = 2;  // __launch_bounds__' promise: at most 102 registers a thread
template <int KS>
constexpr int tiled_weight_threads() { return kGroupsO * KS * kChunkC; }  // 320 for 5x5, 192 for 3x3

struct TiledWeightArgs {
  const float* x;
  const float* dy;
  float* partial;      // [slices][O][C*k*k + 1]
  int N, C, H, W, O, pad, OH, OW;
  int segs, rows;      // as 09.10: kTileP-wide segments per output row; output rows per unit
  int bands;           // units per image: ceil(OH / rows)
  int images_per_slice;
  int groups;          // groups the output channels fill (<= kGroupsO); kGroupsO / groups parts of the rows
};

struct TiledWeightPlan {
  TiledWeightArgs args;
  dim3 grid, block;
  size_t smem_bytes = 0;
  int slices = 0;
  int x_floats = 0, dy_float4s = 0;  // one unit's xs and dys (dys in float4, the padding included)
};
TiledWeightPlan tiled_weight_plan(const ConvShape& s);

// YOUR PART (exercises/conv_tiled_weight.cu): adds one unit to the thread's sums.
//   xs, dys: the unit's buffers (layout above); sh, sw: xs's row count and row length; rows:
//   output rows of the unit; segs: segments per row; cc, i, og: the thread's channel in the
//   chunk, kernel row and output-channel group. (dbias is the given code's.)
template <int KS>
__device__ void accumulate_weight_unit(const float* xs, const float* dys, int sh, int sw, int rows, int segs, int cc,
                                       int i, int og, float (&acc)[kTileO][KS]);

template <int KS>
__global__ void __launch_bounds__(tiled_weight_threads<KS>(), kTiledWeightBlocksPerSM) conv_tiled_weight_kernel(TiledWeightArgs a) {
  constexpr int kThreads = tiled_weight_threads<KS>();
  // With fewer output channels than kBlockO (16: 4 of the 8 groups), the groups' threads split each
  // unit's rows into `parts` instead of multiplying zeros; the parts' sums are added at the end.
  const int t = threadIdx.x, slot = t % kGroupsO, i = (t / kGroupsO) % KS, cc = t / (kGroupsO * KS);
  const int parts = kGroupsO / a.groups, og = slot % a.groups, part = slot / a.groups;
  const int slice = blockIdx.x, o0 = blockIdx.y * kBlockO, c0 = blockIdx.z * kChunkC;
  const int first = slice * a.images_per_slice;
  const int units = max(0, min(a.N - first, a.images_per_slice)) * a.bands;
  const int width = a.segs * kTileP;  // outputs per row, the ragged end included
  const int sh = a.rows + KS - 1, sw = width + KS - 1;
  const int x_floats = kChunkC * sh * sw, dy_float4s = a.rows * width * (kBlockO / 4);
  const int stage = (x_floats + 3) / 4 * 4 + a.rows * width * kDyStride;
  extern __shared__ __align__(16) float smem[];

  float x_next[kMaxStagedXWeight];
  float4 dy_next[kMaxStagedDy];
  const auto fetch = [&](int unit) {
    const int n = first + unit / a.bands, r0 = (unit % a.bands) * a.rows;
    const float* image = a.x + (size_t(n) * a.C + c0) * a.H * a.W;
#pragma unroll
    for (int l = 0; l < kMaxStagedXWeight; ++l) {
      const int e = t + l * kThreads;
      const int s = e % sw, r = (e / sw) % sh, c = e / (sw * sh);
      const int h = r0 + r - a.pad, w = s - a.pad;
      const bool inside = e < x_floats && c0 + c < a.C && unsigned(h) < unsigned(a.H) && unsigned(w) < unsigned(a.W);
      x_next[l] = inside ? __ldg(image + (size_t(c) * a.H + h) * a.W + w) : 0.0f;
    }
    // Neighbouring threads take neighbouring pixels (coalesced reads of each channel's row).
    const float* grad = a.dy + (size_t(n) * a.O + o0) * a.OH * a.OW;
#pragma unroll
    for (int l = 0; l < kMaxStagedDy; ++l) {
      const int e = t + l * kThreads;
      const int p = e % (a.rows * width), quad = e / (a.rows * width);
      const int oh = r0 + p / width, ow = p % width;
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if (e < dy_float4s && oh < a.OH && ow < a.OW)
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (o0 + quad * 4 + q < a.O) v[q] = __ldg(grad + (size_t(quad * 4 + q) * a.OH + oh) * a.OW + ow);
      dy_next[l] = make_float4(v[0], v[1], v[2], v[3]);
    }
  };
  const auto store = [&](int buffer) {
    float* xs = smem + buffer * stage;
    float* dys = xs + (x_floats + 3) / 4 * 4;
#pragma unroll
    for (int l = 0; l < kMaxStagedXWeight; ++l)
      if (t + l * kThreads < x_floats) xs[t + l * kThreads] = x_next[l];
#pragma unroll
    for (int l = 0; l < kMaxStagedDy; ++l) {
      const int e = t + l * kThreads;
      if (e >= dy_float4s) continue;
      const int p = e % (a.rows * width), quad = e / (a.rows * width);
      *reinterpret_cast<float4*>(dys + p * kDyStride + quad * 4) = dy_next[l];
    }
  };

  float acc[kTileO][KS] = {};
  // dbias (blocks of the first channel chunk): thread t adds dy of channel t % 32 over every
  // (kThreads / 32)-th pixel; the block adds those in a fixed order at the end.
  static_assert(kThreads % kBlockO == 0, "whole groups of kBlockO threads for dbias");
  constexpr int kBiasGroups = kThreads / kBlockO;
  const bool adds_bias = blockIdx.z == 0;
  float bias_part = 0.0f;
  if (units > 0) {
    fetch(0);
    store(0);
  }
  __syncthreads();
  int buffer = 0;
  for (int unit = 0; unit < units; ++unit) {
    const bool more = unit + 1 < units;
    if (more) fetch(unit + 1);  // on its way while this unit computes
    const float* xs = smem + buffer * stage;
    const int rows = min(a.rows, a.OH - (unit % a.bands) * a.rows);
    const float* dys = xs + (x_floats + 3) / 4 * 4;
    if (part < parts) {
      // This part's rows [first_row, last_row) of the unit: the buffers seen from its first row.
      const int first_row = rows * part / parts, last_row = rows * (part + 1) / parts;
      accumulate_weight_unit<KS>(xs + first_row * sw, dys + first_row * width * kDyStride, sh, sw,
                                 last_row - first_row, a.segs, cc, i, og, acc);
    }
    if (adds_bias)
      for (int p = t / kBlockO; p < rows * width; p += kBiasGroups) bias_part += dys[p * kDyStride + t % kBlockO];
    if (more) store(buffer ^ 1);
    __syncthreads();
    buffer ^= 1;
  }

  // This slice's sums; a slice without images writes zeros (its share of the fixed-order sum).
  const int Kc = a.C * KS * KS;
  if (adds_bias) {
    smem[t] = bias_part;  // every thread is past the loop's last barrier: the buffers are free
    __syncthreads();
    if (t < kBlockO && o0 + t < a.O) {
      float sum = 0.0f;
      for (int g = 0; g < kBiasGroups; ++g) sum += smem[g * kBlockO + t];
      a.partial[(size_t(slice) * a.O + o0 + t) * (Kc + 1) + Kc] = sum;
    }
  }
  if (parts > 1) {  // part 0 adds the other parts' sums, in order (the same bits on every run)
    constexpr int kSums = kTileO * KS;
    float* sums = smem + (((part * kChunkC + cc) * KS + i) * a.groups + og) * kSums;  // parts * groups <= kGroupsO
    __syncthreads();  // dbias's reads of smem are done
    if (part > 0 && part < parts)
#pragma unroll
      for (int e = 0; e < kSums; ++e) sums[e] = acc[e / KS][e % KS];
    __syncthreads();
    for (int q = 1; part == 0 && q < parts; ++q)
#pragma unroll
      for (int e = 0; e < kSums; ++e) acc[e / KS][e % KS] += sums[q * kChunkC * KS * a.groups * kSums + e];
  }
  if (part != 0 || c0 + cc >= a.C) return;
#pragma unroll
  for (int o = 0; o < kTileO; ++o) {
    const int oc = o0 + og * kTileO + o;
    if (oc >= a.O) continue;
    float* row = a.partial + (size_t(slice) * a.O + oc) * (Kc + 1);
#pragma unroll
    for (int j = 0; j < KS; ++j) row[((c0 + cc) * KS + i) * KS + j] = acc[o][j];
  }
}

}  // namespace fast_training::detail
