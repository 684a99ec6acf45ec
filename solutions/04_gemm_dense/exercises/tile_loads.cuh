#pragma once
// Lesson 04, step 04.5: the block tile of the vectorised kernels (04.5 and 04.6 include this
// file) and its loaders. A stage of an operand, kBK deep along k and kBM wide along p, goes from
// global memory to registers (load_tile) and from there to the shared tile Xs[k][p]
// (store_tile); in shared memory both operands lie k-major whatever their layout in memory, so
// the compute loop never knows which product it is doing.
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

// Loads this thread's part of the kBK x kBM tile of operand X (P rows/columns, K deep) that
// starts at (p0, k0) into registers; positions outside [0, P) x [k0, k_end) read as 0, so
// edge tiles need no special case in the compute loop.
// kVec: float4 loads. The host only picks it when every float4 is either wholly inside or
// wholly outside the matrix (the contiguous extent and k_end are multiples of 4) and 16-byte
// aligned.
template <Layout kLayout, bool kVec, int kLoads>
__device__ __forceinline__ void load_tile(const float* __restrict__ X, int P, int K, int p0, int k0, int k_end,
                                          float4 (&r)[kLoads]) {
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    const int idx = threadIdx.x + i * kThreads;
    int p, k;  // first of the 4 elements this float4 holds
    if (kLayout == Layout::k_contiguous) {
      p = p0 + idx / (kBK / 4);  // 4 float4 per row of the tile: one row is 64 bytes of X
      k = k0 + idx % (kBK / 4) * 4;
    } else {
      k = k0 + idx / (kBM / 4);  // 32 float4 per row: a warp reads 512 contiguous bytes
      p = p0 + idx % (kBM / 4) * 4;
    }
    const size_t offset = kLayout == Layout::k_contiguous ? size_t(p) * K + k : size_t(k) * P + p;
    if (kVec) {
      r[i] = (p < P && k < k_end) ? *reinterpret_cast<const float4*>(X + offset) : make_float4(0, 0, 0, 0);
    } else {
      // How many of the 4 elements lie inside (none when the first lies outside): the rest
      // read as 0. One count instead of four tests keeps registers free for the accumulators.
      const int n_in = kLayout == Layout::k_contiguous ? (p < P ? k_end - k : 0) : (k < k_end ? P - p : 0);
      const float* src = X + offset;
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = j < n_in ? src[j] : 0.0f;
      r[i] = make_float4(v[0], v[1], v[2], v[3]);
    }
  }
}

// Writes what load_tile fetched into the k-major shared tile Xs[k][p]: k-contiguous data is
// transposed on the way (4 scalar stores), p-contiguous data goes in as one float4.
template <Layout kLayout, int kLoads>
__device__ __forceinline__ void store_tile(const float4 (&r)[kLoads], float (*Xs)[kPitch]) {
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    const int idx = threadIdx.x + i * kThreads;
    if (kLayout == Layout::k_contiguous) {
      const int p = idx / (kBK / 4), k = idx % (kBK / 4) * 4;
      Xs[k + 0][p] = r[i].x;
      Xs[k + 1][p] = r[i].y;
      Xs[k + 2][p] = r[i].z;
      Xs[k + 3][p] = r[i].w;
    } else {
      const int k = idx / (kBM / 4), p = idx % (kBM / 4) * 4;
      *reinterpret_cast<float4*>(&Xs[k][p]) = r[i];
    }
  }
}

}  // namespace gemm_dense::tiles
