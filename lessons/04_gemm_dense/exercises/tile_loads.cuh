#pragma once
// Lesson 04, step 04.5: the block tile of the vectorised kernels (04.5 and 04.6 include this
// file) and its loaders. YOUR FILE: fill in load_tile and store_tile.
#include "matmul_launchers.hpp"

namespace gemm_dense::tiles {

using detail::Layout;

constexpr int kBM = 128, kBN = 128, kBK = 16;  // block tile of C, and the K depth of one stage
constexpr int kTM = 8, kTN = 8;                // register tile of one thread
constexpr int kThreadsX = kBN / kTN, kThreadsY = kBM / kTM;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kPitch = kBM + 4;  // shared row length: +4 floats keeps float4 alignment and
                                 // spreads the transposed stores over more banks
constexpr int kLoadsA = kBM * kBK / 4 / kThreads;  // float4 each thread loads per stage
constexpr int kLoadsB = kBN * kBK / 4 / kThreads;

static_assert(kBM == kBN, "one shared pitch and one loader shape serve both operands");
static_assert(kTM == 8 && kTN == 8, "each thread's 8 rows (columns) are two float4 groups");
static_assert(kBM == 2 * 4 * kThreadsY && kBN == 2 * 4 * kThreadsX,
              "the two float4 groups of a thread sit half a tile apart");
static_assert(kThreads == 256, "the kernels' launch bounds assume 256 threads");
static_assert(kBK % 4 == 0, "k-contiguous tiles are loaded as float4 along k");
static_assert((kBM * kBK) % (4 * kThreads) == 0 && (kBN * kBK) % (4 * kThreads) == 0,
              "every thread loads the same whole number of float4 per stage");
static_assert(kLoadsA >= 1 && kLoadsB >= 1, "too many threads for the tile");
static_assert(kPitch % 4 == 0, "float4 reads of shared rows need 16-byte alignment");
static_assert(2 * 2 * kBK * kPitch * sizeof(float) <= 48 * 1024, "static shared memory is limited to 48 KiB");

// Loads this thread's kLoads float4 of the kBK-deep tile of operand X (P rows or columns, K
// deep, in layout kLayout) that starts at (p0, k0). kVec: the host only sets it when a float4
// load is safe (the contiguous extent and k_end are multiples of 4, X 16-byte aligned).
template <Layout kLayout, bool kVec, int kLoads>
__device__ __forceinline__ void load_tile(const float* __restrict__ X, int P, int K, int p0, int k0, int k_end,
                                          float4 (&r)[kLoads]) {
  // TODO(04.5): fill r with this thread's kLoads groups of 4 consecutive elements (4 along k
  // when k-contiguous, 4 along p when p-contiguous) of the kBM x kBK tile at (p0, k0); the
  // kThreads threads together cover the whole tile once, consecutive threads at consecutive
  // addresses. Elements outside [0, P) x [k0, k_end) are 0, never read (the memory after X may
  // hold NaN). kVec true: one float4 load per group; false: scalar, bounds-checked loads (X need
  // not be aligned). Offsets in size_t. store_tile must use the same thread -> element mapping.
}

// Writes what load_tile fetched into the k-major shared tile Xs[k][p], whatever the layout.
template <Layout kLayout, int kLoads>
__device__ __forceinline__ void store_tile(const float4 (&r)[kLoads], float (*Xs)[kPitch]) {
  // TODO(04.5): write the values this thread's load_tile fetched (same mapping) to their places
  // Xs[k - k0][p - p0] of the k-major shared tile, for both layouts (k-contiguous data is
  // transposed on the way).
}

}  // namespace gemm_dense::tiles
