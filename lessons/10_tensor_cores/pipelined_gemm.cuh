#pragma once
// Lesson 10 (given, read-only): the pipelined Tensor Core GEMM of step 10.3 around the part you
// write (run_pipeline in exercises/pipeline_loop.cuh).
//
// 10.2's kernel waits for every stage's loads before its warps multiply. Here a block (8 warps,
// 128 x 128 of C; each warp 64 x 32: 4 x 2 fragments) keeps kStages stages of A and B in shared
// memory and fills them with ASYNCHRONOUS copies (cp.async: global -> shared without passing
// through registers, 16 bytes at a time): while the warps multiply stage s, the copies of the next
// stages are in flight. The copies are grouped: every commit() closes a group, and
// wait<n>() returns once at most n groups are still in flight.
//
// Shared memory, kStages buffers of:
//   As [kTileM][kTileK + pad]   Bs [kTileK][kTileN + pad]     (kTileK: 64 bytes of a row of A)
// then, after the last stage, C's tile on its way out: Cs [kTileM][kTileN + 4] floats.
// Rows of A and B whose starts are not 16-byte aligned (K or N not a multiple of 16 bytes' worth of
// elements) cannot be copied 16 bytes at a time: those matrices are loaded element by element
// (synchronously; the pipeline's order still holds).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

#include "wmma_gemm.cuh"

namespace tensor_cores::detail {

constexpr int kTileM = 128, kTileN = 128, kStages = 3;
constexpr int kPipeWarpsM = 2, kPipeWarpsN = 4, kPipeThreads = kPipeWarpsM * kPipeWarpsN * 32;
constexpr int kPipeWarpM = kTileM / kPipeWarpsM, kPipeWarpN = kTileN / kPipeWarpsN;  // 64 x 32
constexpr int kFragsM = kPipeWarpM / 16, kFragsN = kPipeWarpN / 16;                   // 4 x 2

// The shared-memory stages of a block's tiles of A (TM x kTileK) and B (kTileK x TN), kTileK =
// KB bytes of elements (64: 32 BF16 or 16 floats); rows padded by 16 bytes (fragment alignment,
// and ldmatrix without bank conflicts: 8 rows of 80, 144 or 272 bytes fall into 8 different
// groups of banks).
template <class E, int TM, int TN, int NS, int KB = 64>
struct StageShape {
  static constexpr int kVec = 16 / int(sizeof(E));   // elements per 16-byte copy
  static constexpr int kTileK = KB / int(sizeof(E));
  static constexpr int lda = kTileK + kVec, ldb = TN + kVec;
  static constexpr int kStageElements = TM * lda + kTileK * ldb;
  static constexpr size_t kBytes = size_t(NS) * kStageElements * sizeof(E);
};

template <class F>
struct PipeShape : StageShape<typename F::Element, kTileM, kTileN, kStages> {
  using Base = StageShape<typename F::Element, kTileM, kTileN, kStages>;
  static constexpr int ldc = kTileN + 4;
  static constexpr size_t kCBytes = size_t(kTileM) * ldc * sizeof(float);
  static constexpr size_t kSmemBytes = Base::kBytes > kCBytes ? Base::kBytes : kCBytes;
};

#if COURSE_WMMA
// The copies of a block's tiles into NS stages: what run_pipeline calls (besides compute).
template <class E, int TM, int TN, int NS, int NT, int KB = 64>
struct Stages {
  using S = StageShape<E, TM, TN, NS, KB>;
  static constexpr int kStages = NS;
  const E* A;
  const E* B;
  int M, N, K, m0, n0;
  bool async_a, async_b;  // rows 16-byte aligned: cp.async; else element by element
  E* smem;

  __device__ E* as(int buffer) const { return smem + buffer * S::kStageElements; }
  __device__ E* bs(int buffer) const { return as(buffer) + TM * S::lda; }

  // Issues the copies of k-tile `tile` (k = tile * kTileK ...) into `buffer`; zeros past A's and
  // B's edges. Every thread of the block calls it.
  __device__ void load(int buffer, int tile) const {
    const int k0 = tile * S::kTileK;
    E* a_dst = as(buffer);
    E* b_dst = bs(buffer);
    constexpr int a_chunks = TM * S::kTileK / S::kVec, b_chunks = S::kTileK * TN / S::kVec;
    for (int c = threadIdx.x; c < a_chunks; c += NT) {
      const int r = c / (S::kTileK / S::kVec), col = (c % (S::kTileK / S::kVec)) * S::kVec;
      copy(a_dst + r * S::lda + col, A, m0 + r, M, k0 + col, K, async_a);
    }
    for (int c = threadIdx.x; c < b_chunks; c += NT) {
      const int r = c / (TN / S::kVec), col = (c % (TN / S::kVec)) * S::kVec;
      copy(b_dst + r * S::ldb + col, B, k0 + r, K, n0 + col, N, async_b);
    }
  }
  __device__ void commit() const { asm volatile("cp.async.commit_group;\n" ::); }
  template <int n>
  __device__ void wait() const { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
  __device__ void sync() const { __syncthreads(); }

 private:
  // kVec elements of row `row` (of `rows`) from column `col` (of `cols`) of a row-major matrix.
  __device__ static void copy(E* dst, const E* src, int row, int rows, int col, int cols, bool async) {
    const int valid = row < rows ? max(0, min(S::kVec, cols - col)) : 0;
    if (async) {
      // cp.async with a source size below 16 bytes fills the rest with zeros; with 0 it reads nothing.
      const E* from = valid > 0 ? src + size_t(row) * cols + col : src;
      const unsigned to = unsigned(__cvta_generic_to_shared(dst));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(from),
                   "r"(valid * int(sizeof(E))));
    } else {
      for (int v = 0; v < S::kVec; ++v) dst[v] = v < valid ? src[size_t(row) * cols + col + v] : E(0.0f);
    }
  }
};

// 10.3's pipeline: the stages of a 128 x 128 block, and the warps' WMMA multiplies.
template <class F>
struct Pipeline : Stages<typename F::Element, kTileM, kTileN, kStages, kPipeThreads> {
  using E = typename F::Element;
  using S = PipeShape<F>;
  Accumulator<F> (&acc)[kFragsM][kFragsN];

  // The warp's 4 x 2 fragments += its rows of As(buffer) x its columns of Bs(buffer): your 10.2
  // warp_tile_mma on each half of its rows (2 x 2 fragments), kStageK values of k at a time.
  __device__ void compute(int buffer) const {
    const int warp = threadIdx.x / 32, wm = warp / kPipeWarpsN, wn = warp % kPipeWarpsN;
    const E* a = this->as(buffer) + wm * kPipeWarpM * S::lda;
    const E* b = this->bs(buffer) + wn * kPipeWarpN;
    static_assert(kFragsM == 4 && kFragsN == 2 && S::kTileK % kStageK == 0, "two 2 x 2 halves, whole stages of k");
    for (int kk = 0; kk < S::kTileK; kk += kStageK)
      for (int half = 0; half < 2; ++half)
        warp_tile_mma<F>(a + 32 * half * S::lda + kk, S::lda, b + kk * S::ldb, S::ldb,
                         *reinterpret_cast<Accumulator<F>(*)[2][2]>(&acc[2 * half]));
  }
};

// YOUR PART (exercises/pipeline_loop.cuh): the main loop over the k_tiles tiles of K.
template <class P>
__device__ void run_pipeline(const P& p, int k_tiles);
#endif

template <class F>
__global__ void __launch_bounds__(kPipeThreads) gemm_pipelined_kernel(const typename F::Element* __restrict__ A,
                                                                      const typename F::Element* __restrict__ B,
                                                                      float* __restrict__ C, int M, int N, int K,
                                                                      bool async_a, bool async_b) {
#if COURSE_WMMA
  using S = PipeShape<F>;
  extern __shared__ __align__(128) unsigned char pipe_smem[];
  Accumulator<F> acc[kFragsM][kFragsN];
  for (int i = 0; i < kFragsM; ++i)
    for (int j = 0; j < kFragsN; ++j) nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const Pipeline<F> p{{A, B, M, N, K, m0, n0, async_a, async_b, reinterpret_cast<typename F::Element*>(pipe_smem)},
                      acc};
  run_pipeline(p, (K + S::kTileK - 1) / S::kTileK);
  p.template wait<0>();
  __syncthreads();  // every warp is done with the stages: Cs may reuse their memory

  float* Cs = reinterpret_cast<float*>(pipe_smem);
  const int warp = threadIdx.x / 32, wm = warp / kPipeWarpsN, wn = warp % kPipeWarpsN;
  for (int i = 0; i < kFragsM; ++i)
    for (int j = 0; j < kFragsN; ++j)
      nvcuda::wmma::store_matrix_sync(Cs + (wm * kPipeWarpM + 16 * i) * S::ldc + wn * kPipeWarpN + 16 * j, acc[i][j],
                                      S::ldc, nvcuda::wmma::mem_row_major);
  __syncthreads();
  for (int e = threadIdx.x; e < kTileM * kTileN; e += kPipeThreads) {
    const int r = e / kTileN, c = e % kTileN;
    if (m0 + r < M && n0 + c < N) C[size_t(m0 + r) * N + n0 + c] = Cs[r * S::ldc + c];
  }
#endif
}

}  // namespace tensor_cores::detail
