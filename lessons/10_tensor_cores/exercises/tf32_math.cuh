// Lesson 10, step 10.10: lesson 09's implicit-GEMM engine on the Tensor Cores, as a math policy of
// its engine (lesson 09's gemm_core.cuh: what a policy has, and FfmaMath, lesson 09's). YOUR FILE:
// stage and store; the layouts, the padding and the rounding on the way in are given.
#pragma once
#include <cstdint>

namespace tensor_cores {

// Tf32Math: the engine's tiles multiplied on the Tensor Cores. Values are
// rounded to TF32 on their way into shared memory (to nearest, ties away: cvt.rna); each warp owns
// 32 rows x WN columns of the block's tile, as m16 x n8 tiles of mma.sync.m16n8k8 (TF32 products,
// FP32 sums), its operands read from the tiles one 32-bit word per register (10.4's
// layouts: lane l, g = l / 4, t = l % 4: a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4],
// a3 = A[g+8][t+4]; b0 = B[t][g], b1 = B[t+4][g]). Rows of BM + 8 floats: the 8 x 4 words a warp
// reads (8 rows t, 8 neighbours g) fall into 32 different banks. Compute capability 8.0 or newer.
template <class T>
struct Tf32Math {
  static constexpr int kPad = 8;
  static constexpr int kWarps = T::kThreads / 32, kWarpsM = T::BM / 32, kWarpsN = kWarps / kWarpsM;
  static constexpr int WN = T::BN / kWarpsN, kTilesN = WN / 8;
  static_assert(T::BM % 32 == 0 && kWarps % kWarpsM == 0 && T::BN % (8 * kWarpsN) == 0 && T::BK % 8 == 0,
                "Tensor Core math: warps of 32 rows x a multiple of 8 columns, stages of whole k8 steps");
  float acc[2][kTilesN][4] = {};
  __device__ static float prepare(float v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    uint32_t bits;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(v));
    return __uint_as_float(bits);
#else
    return v;
#endif
  }
  // The products of one stage: for every k8 step of the stage's BK, this warp's 2 x kTilesN tiles of
  // mma.sync.m16n8k8 (TF32 inputs, FP32 sums into acc), their operands read from the tiles As[k][m]
  // and Bs[k][n] in the layouts above.
  template <class AT, class BT>
  __device__ void stage(const AT& As, const BT& Bs, int tid) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    // TODO(10.10): this warp's corner (wm, wn) in the block's tile, then per k8 step the A and B
    // fragments (one 32-bit word each, __float_as_uint) and the mma.sync of every tile pair.
    (void)As, (void)Bs, (void)tid;
#else
    (void)As, (void)Bs, (void)tid;
    __trap();  // the products' table refuses GPUs without TF32 Tensor Cores
#endif
  }
  // Every accumulator to g.store(m, n, value), where it belongs in C: c0, c1 are row g, columns
  // 2t, 2t + 1 of a tile; c2, c3 the same columns of row g + 8. Nothing outside M x N.
  template <class G>
  __device__ void store(const G& g, int m0, int n0, int M, int N, int tid) const {
    // TODO(10.10): the row and column of each accumulator, then g.store for those inside M x N.
    (void)g, (void)m0, (void)n0, (void)M, (void)N, (void)tid;
  }
};

}  // namespace tensor_cores
