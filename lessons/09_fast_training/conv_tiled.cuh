#pragma once
// Lesson 09 (given, read-only): the tiled direct convolution of step 09.10 around the part you
// write (accumulate_chunk in exercises/conv_tiled.cu): who computes which outputs, how a chunk of
// the image and of the weights gets into shared memory, and the stores.
//
// One block: one image, kBlockO output channels, `rows` output rows (all of them for model A's
// 14 x 14 conv2). Thread t computes kTileO output channels x kTileP neighbouring outputs of one
// row; with fewer than kBlockO output channels only the groups they fill compute, and the block
// takes more rows instead (a 16-channel conv would otherwise spend half its multiply-adds on
// zeros). A small image gets a block of 128 or 64 threads (tiled_plan). The input channels go
// through shared memory kChunkC at a time, in two buffers: the registers fetch chunk c + 1 from
// global memory while chunk c is being multiplied.
//
// Shared memory of one buffer:
//   ws [kChunkC][k][k][kBlockO]   the chunk's weights of the block's output channels
//   xs [kChunkC][SH][SW]          the chunk's input rows with their padding (zeros)
// xs row r holds input row r0 + r - pad, column s holds input column s - pad (r0: the block's
// first output row); output (oh, ow) of the block reads xs rows oh .. oh + k - 1, columns
// ow .. ow + k - 1, all inside: the padding is stored, never tested for.
#include <cuda_runtime.h>

#include "fast_training.hpp"

namespace fast_training::detail {

constexpr int kTileP = 7;    // outputs of a row per thread (14 = 2 x 7: model A's conv2 rows)
constexpr int kTileO = 4;    // output channels per thread (one float4 of ws)
constexpr int kGroupsO = 8;  // thread groups along the output channels
constexpr int kBlockO = kTileO * kGroupsO;
constexpr int kChunkC = 8;   // input channels per shared-memory buffer
constexpr int kTiledThreads = 256;
constexpr int kMaxStagedX = 16;  // input floats a thread may fetch per chunk (registers)
constexpr int kTiledBlocksPerSM = 1;  // __launch_bounds__' promise: caps the registers a thread gets

// One direction of the convolution as the kernel sees it: a forward conv of `in` with weights
// wt [C][k][k][o_stride] into `out`; 09.3's dx is the same with dy as `in` and the flipped layout.
struct TiledConvArgs {
  const float* in;
  const float* wt;
  const float* bias;  // null: none
  float* out;
  int C, H, W;        // input channels and size
  int O, o_stride;    // output channels; wt's row length (O rounded up to 4)
  int pad, OH, OW;    // padding, output size
  int segs, rows;     // kTileP-wide segments per output row; output rows per block
  int groups;         // thread groups along the output channels that compute (<= kGroupsO)
  float* stats;       // not null: each block's statistics of its outputs (conv2d_forward_tiled)
};

// How a shape is cut into blocks, and the shared memory it needs.
struct TiledPlan {
  TiledConvArgs args;
  dim3 grid;
  int threads = kTiledThreads;  // a block: 64, 128 or 256
  size_t smem_bytes = 0;
  int x_floats = 0, w_floats = 0;  // one chunk's xs and ws
};
TiledPlan tiled_plan(int N, int C, int H, int W, int O, int k, int pad, int OH, int OW);

// Throws course::Error("<what>: <conv_tiled_problem(s)>") when the tiled kernels cannot run s.
void require_tiled(const ConvShape& s, const char* what);

// YOUR PART (exercises/conv_tiled.cu): adds the chunk's kChunkC input channels to acc.
//   ws, xs: this chunk's buffers (layout above); sh, sw: xs's row count and row length;
//   oh, ow0: the thread's output row inside the block and its first output column;
//   og: the thread's group: output channels og * kTileO .. og * kTileO + kTileO - 1 of ws.
template <int KS>
__device__ void accumulate_chunk(const float* ws, const float* xs, int sh, int sw, int oh, int ow0, int og,
                                 float (&acc)[kTileO][kTileP]);

// Given (exercises/conv_tiled.cu): after the stores, for each of the block's output channels the
// count, mean and squares around the mean of its outputs, into a.stats. Every thread calls it (`stores`:
// whether it stored outputs); the shared memory is free again.
__device__ void tile_statistics(const TiledConvArgs& a, const float (&acc)[kTileO][kTileP], float* smem, int og,
                                int ow0, int rows, bool stores);

template <int KS, int Threads>
__global__ void __launch_bounds__(Threads, kTiledBlocksPerSM) conv_tiled_kernel(TiledConvArgs a) {
  constexpr int kWeightFloats = kChunkC * KS * KS * kBlockO;
  constexpr int kStagedW = (kWeightFloats / 4 + Threads - 1) / Threads;  // float4 per thread
  const int n = blockIdx.x, o0 = blockIdx.y * kBlockO, r0 = blockIdx.z * a.rows;
  const int rows = min(a.rows, a.OH - r0);
  const int sh = rows + KS - 1, sw = a.segs * kTileP + KS - 1;
  const int x_floats = kChunkC * sh * sw;
  const int stage = kWeightFloats + (x_floats + 3) / 4 * 4;  // floats of one buffer, float4-aligned
  extern __shared__ __align__(16) float smem[];

  const int t = threadIdx.x, positions = rows * a.segs;
  const int og = t / positions, pos = t % positions;
  const int oh = pos / a.segs, ow0 = (pos % a.segs) * kTileP;
  const bool computes = og < a.groups;  // the threads past the last group only fetch
  const float* image = a.in + size_t(n) * a.C * a.H * a.W;

  // Which input floats this thread fetches is the same for every chunk: work it out once.
  // offset -1: padding (a zero); -2: past the buffer's end (nothing to store).
  int x_offset[kMaxStagedX];
#pragma unroll
  for (int l = 0; l < kMaxStagedX; ++l) {
    const int e = t + l * Threads;
    const int s = e % sw, r = (e / sw) % sh, cc = e / (sw * sh);
    const int h = r0 + r - a.pad, w = s - a.pad;
    x_offset[l] = e >= x_floats ? -2 : (unsigned(h) < unsigned(a.H) && unsigned(w) < unsigned(a.W)) ? (cc * a.H + h) * a.W + w : -1;
  }
  float x_next[kMaxStagedX];
  float4 w_next[kStagedW];
  const auto fetch = [&](int c0) {
    const int channels_left = a.C - c0;
#pragma unroll
    for (int l = 0; l < kMaxStagedX; ++l) {
      const int cc = (t + l * Threads) / (sw * sh);
      x_next[l] = x_offset[l] >= 0 && cc < channels_left ? __ldg(image + size_t(c0) * a.H * a.W + x_offset[l]) : 0.0f;
    }
#pragma unroll
    for (int l = 0; l < kStagedW; ++l) {
      const int e = t + l * Threads;  // float4 number e of ws: row e / (kBlockO / 4), quad e % (kBlockO / 4)
      const int row = e / (kBlockO / 4), quad = e % (kBlockO / 4);
      const bool inside = e < kWeightFloats / 4 && row / (KS * KS) < channels_left && o0 + 4 * quad < a.o_stride;
      w_next[l] = inside ? __ldg(reinterpret_cast<const float4*>(a.wt + (size_t(c0) * KS * KS + row) * a.o_stride + o0) + quad)
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  };
  const auto store = [&](int buffer) {
    float* ws = smem + buffer * stage;
    float* xs = ws + kWeightFloats;
#pragma unroll
    for (int l = 0; l < kStagedW; ++l)
      if (t + l * Threads < kWeightFloats / 4) reinterpret_cast<float4*>(ws)[t + l * Threads] = w_next[l];
#pragma unroll
    for (int l = 0; l < kMaxStagedX; ++l)
      if (x_offset[l] != -2) xs[t + l * Threads] = x_next[l];
  };

  float acc[kTileO][kTileP] = {};
  fetch(0);
  store(0);
  __syncthreads();
  int buffer = 0;
  for (int c0 = 0; c0 < a.C; c0 += kChunkC) {
    const bool more = c0 + kChunkC < a.C;
    if (more) fetch(c0 + kChunkC);  // on its way while this chunk computes
    const float* ws = smem + buffer * stage;
    if (computes && oh < rows) accumulate_chunk<KS>(ws, ws + kWeightFloats, sh, sw, oh, ow0, og, acc);
    // The other buffer was last read in the previous chunk, before its closing barrier.
    if (more) store(buffer ^ 1);
    __syncthreads();
    buffer ^= 1;
  }

  const bool stores = computes && oh < rows;
#pragma unroll
  for (int o = 0; o < kTileO; ++o) {
    const int oc = o0 + og * kTileO + o;
    if (!stores || oc >= a.O) continue;
    const float b = a.bias ? __ldg(a.bias + oc) : 0.0f;
    float* out_row = a.out + ((size_t(n) * a.O + oc) * a.OH + r0 + oh) * a.OW;
#pragma unroll
    for (int p = 0; p < kTileP; ++p)
      if (ow0 + p < a.OW) out_row[ow0 + p] = acc[o][p] + b;
  }
  if (a.stats) tile_statistics(a, acc, smem, og, ow0, rows, stores);
}

}  // namespace fast_training::detail
