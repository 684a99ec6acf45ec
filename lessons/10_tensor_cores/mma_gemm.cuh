#pragma once
// Lesson 10 (given, read-only): the GEMM of step 10.4 around the part you write (warp_mma_bf16
// in exercises/gemm_mma.cu): BF16 tiles staged by 10.3's pipeline (your run_pipeline), multiplied
// by mma.sync, the instruction under WMMA, with operands loaded by ldmatrix.
//
// Block: 128 x 256 of C, 8 warps in 2 x 4, each warp 64 x 64: 4 x 8 tiles of m16 x n8, each held
// in 4 FP32 registers per lane. Stages of kTileK = 64 along K (128 bytes a row), 3 of them.
//
// The registers of one mma.sync.m16n8k16 (lane = 0..31, g = lane / 4, t = lane % 4):
//   A 16 x 16 (4 registers, 2 BF16 each)   a0: (g, 2t..2t+1)  a1: (g+8, 2t..)  a2: (g, 2t+8..)  a3: (g+8, 2t+8..)
//   B 16 x 8  (2 registers)                b0: (k 2t..2t+1, n g)                b1: (k 2t+8.., n g)
//   C 16 x 8  (4 floats)                   c0, c1: (g, 2t..2t+1)                c2, c3: (g+8, 2t..2t+1)
// ldmatrix fills such registers from shared memory: .x4 reads four 8 x 8 matrices of 16-bit
// values, lane l giving the address of row l % 8 of matrix l / 8; .trans hands each lane the
// transposed elements (what B needs when it is stored k-major, row by row of K).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "pipelined_gemm.cuh"

namespace tensor_cores::detail {

constexpr int kMmaTileM = 128, kMmaTileN = 256, kMmaStages = 3, kMmaTileKBytes = 128;
constexpr int kMmaWarpsM = 2, kMmaWarpsN = 4, kMmaThreads = kMmaWarpsM * kMmaWarpsN * 32;
constexpr int kMmaWarpM = kMmaTileM / kMmaWarpsM, kMmaWarpN = kMmaTileN / kMmaWarpsN;  // 64 x 64
constexpr int kMmaTilesM = kMmaWarpM / 16, kMmaTilesN = kMmaWarpN / 8;                  // 4 x 8
using MmaShape = StageShape<__nv_bfloat16, kMmaTileM, kMmaTileN, kMmaStages, kMmaTileKBytes>;

#if COURSE_WMMA
// Four 8 x 8 matrices of 16-bit values from shared memory; `row` is this lane's row address.
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  const unsigned address = unsigned(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
// The same, each matrix transposed on the way.
__device__ inline void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
  const unsigned address = unsigned(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
// c += a * b for one m16 x n8 x k16 tile, BF16 inputs, FP32 sums.
__device__ inline void mma_bf16_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The m16n8k16 operands from shared BF16 values whose k runs contiguously, one 32-bit word (two
// values of k) a register; gq = lane / 4, t = lane % 4. A (16 rows x 16 k): row0 and row1 point at
// k = 2t of the tile's rows gq and gq + 8; the registers hold k = 2t, 2t + 1 of both rows, then
// k = 2t + 8, 2t + 9 of both.
__device__ inline void a_fragment_k_major(uint32_t (&a)[4], const __nv_bfloat16* row0, const __nv_bfloat16* row1) {
  auto word = [](const __nv_bfloat16* p) { return *reinterpret_cast<const uint32_t*>(p); };
  a[0] = word(row0), a[1] = word(row1), a[2] = word(row0 + 8), a[3] = word(row1 + 8);
}
// B (16 k x 8 columns): column points at k = 2t of the tile's column gq; b0 holds k = 2t, 2t + 1,
// b1 k = 2t + 8, 2t + 9.
__device__ inline void b_fragment_k_major(uint32_t& b0, uint32_t& b1, const __nv_bfloat16* column) {
  b0 = *reinterpret_cast<const uint32_t*>(column), b1 = *reinterpret_cast<const uint32_t*>(column + 8);
}

// YOUR PART (exercises/gemm_mma.cu): acc += the warp's 64 rows of As x its 64 columns of Bs, one
// stage (kTileK = 64 values of k). as: the warp's first row of As (leading dimension lda), bs: its
// first column of Bs (ldb); acc[i][j]: the m16 x n8 tile of rows 16 i .., columns 8 j ...
__device__ void warp_mma_bf16(const __nv_bfloat16* as, int lda, const __nv_bfloat16* bs, int ldb,
                              float (&acc)[kMmaTilesM][kMmaTilesN][4]);

// 10.3's stages for this block, and the warps' mma.sync multiplies.
struct MmaPipeline : Stages<__nv_bfloat16, kMmaTileM, kMmaTileN, kMmaStages, kMmaThreads, kMmaTileKBytes> {
  float (&acc)[kMmaTilesM][kMmaTilesN][4];
  __device__ void compute(int buffer) const {
    const int warp = threadIdx.x / 32, wm = warp / kMmaWarpsN, wn = warp % kMmaWarpsN;
    warp_mma_bf16(as(buffer) + wm * kMmaWarpM * MmaShape::lda, MmaShape::lda, bs(buffer) + wn * kMmaWarpN,
                  MmaShape::ldb, acc);
  }
};

template <class P>
__device__ void run_pipeline(const P& p, int k_tiles);  // yours, from 10.3
#endif

__global__ void __launch_bounds__(kMmaThreads) gemm_mma_kernel(const __nv_bfloat16* __restrict__ A,
                                                               const __nv_bfloat16* __restrict__ B,
                                                               float* __restrict__ C, int M, int N, int K,
                                                               bool async_a, bool async_b);

}  // namespace tensor_cores::detail
