#pragma once
// Lesson 09 (given, read-only): what the implicit-GEMM convolution files share: the shape check,
// the tile shapes, the split of a long reduction and the sum of its slices.
#include <cuda_runtime.h>

#include <cstddef>

#include "fast_training.hpp"
#include "gemm_core.cuh"

namespace fast_training::detail {

// Throws course::Error naming `what` when a size is < 1, the output has no pixels, an index
// would not fit an int, or the key table would not fit shared memory (more than kMaxKeys keys).
constexpr long long kMaxKeys = 8192;  // 64 KiB of int2: fits beside the tiles on every GPU since sm_75
void check_conv_shape(const ConvShape& s, const char* what);

// A convolution's sizes as the gathers use them: ConvShape with a padding per axis, which may be
// negative (the flipped convolution of 09.3 pads by kh-1-pad, below 0 when pad > kh-1), and the
// output size stated rather than derived.
struct ConvGeometry {
  int N, C, H, W, O, kh, kw, stride, pad_h, pad_w, OH, OW;
};
ConvGeometry geometry_of(const ConvShape& s);

// Tiles, picked by the GEMM's M (output channels for forward and backward data): a tile twice
// as tall as M would leave half the block idle. 128 threads, 16-deep stages.
using ForwardTileNarrow = Tile<32, 64, 16, 4, 4, false>;  // M <= 32
using ForwardTileWide = Tile<64, 64, 16, 4, 8, false>;    // M > 32
// The weight gradient reads both operands along its reduction (k = image pixel): B along k.
using WeightTileNarrow = Tile<32, 32, 16, 4, 4, true>;    // 64 threads
using WeightTileWide = Tile<64, 64, 16, 4, 8, true>;     // 128 threads
static_assert(WeightTileNarrow::BK == WeightTileWide::BK, "one slice length for both");

// How many slices to cut a reduction of length K into when the output has `tiles` tiles: about
// kTargetBlocks blocks (some 8 per SM of an H100: blocks of 64 or 128 threads need that many to
// keep enough loads in flight), each slice at least kMinSlice long, at most kMaxSlices. A rule of
// the shape alone, not of the GPU: the same slices, the same bits anywhere.
constexpr int kTargetBlocks = 1024, kMinSlice = 128, kMaxSlices = 512;
int split_k_slices(int tiles, int K);
// The slice length for `slices` slices: a multiple of the tile depth bk.
inline int slice_length(int K, int slices, int bk) { return ((K + slices - 1) / slices + bk - 1) / bk * bk; }

// The weight gradient's slices: partial[z][o][j] for z < slices, o < O, j <= Kc (column Kc is
// dbias). Adds them in the order z = 0, 1, ... (deterministic) into dW[o][j] (j < Kc) and dbias[o].
void sum_weight_slices(const float* partial, int slices, int O, int Kc, float* dW, float* dbias,
                       cudaStream_t stream);
// The weight-gradient GEMM's tile for O output channels, and its slices for shape s.
int weight_gemm_slices(const ConvShape& s);

}  // namespace fast_training::detail
