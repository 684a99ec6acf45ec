// Lesson 10, step 10.10: lesson 09's implicit-GEMM engine on the Tensor Cores, as a math policy of
// its engine (lesson 09's gemm_core.cuh: what a policy has, and FfmaMath, lesson 09's).
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
  template <class AT, class BT>
  __device__ void stage(const AT& As, const BT& Bs, int tid) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int wm = (warp / kWarpsN) * 32, wn = (warp % kWarpsN) * WN;
#pragma unroll
    for (int k0 = 0; k0 < T::BK; k0 += 8) {
      uint32_t a[2][4], b[kTilesN][2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int r = wm + 16 * i + g;
        a[i][0] = __float_as_uint(As[k0 + t][r]), a[i][1] = __float_as_uint(As[k0 + t][r + 8]);
        a[i][2] = __float_as_uint(As[k0 + t + 4][r]), a[i][3] = __float_as_uint(As[k0 + t + 4][r + 8]);
      }
#pragma unroll
      for (int j = 0; j < kTilesN; ++j) {
        const int c = wn + 8 * j + g;
        b[j][0] = __float_as_uint(Bs[k0 + t][c]), b[j][1] = __float_as_uint(Bs[k0 + t + 4][c]);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < kTilesN; ++j)
          asm volatile(
              "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
              "{%0, %1, %2, %3};\n"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
#else
    (void)As, (void)Bs, (void)tid;
    __trap();  // the products' table refuses GPUs without TF32 Tensor Cores
#endif
  }
  template <class G>
  __device__ void store(const G& g, int m0, int n0, int M, int N, int tid) const {
    const int warp = tid / 32, lane = tid % 32;
    const int row = m0 + (warp / kWarpsN) * 32 + lane / 4, col = n0 + (warp % kWarpsN) * WN + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < kTilesN; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {  // c0, c1: row g, columns 2t, 2t + 1; c2, c3: row g + 8
          const int m = row + 16 * i + 8 * (e / 2), n = col + 8 * j + e % 2;
          if (m < M && n < N) g.store(m, n, acc[i][j][e]);
        }
  }
};

}  // namespace tensor_cores
