#pragma once
// Lesson 10 (given, read-only): the WMMA GEMM of step 10.2 around the part you write
// (warp_tile_mma in exercises/warp_tile_mma.cuh): a block's tile of C, the tiles of A and B in shared
// memory (zeros past the matrices' edges: any M, N, K), and C's store.
//
// Block: kBlockM x kBlockN of C, 4 warps in 2 x 2, each warp kWarpM x kWarpN = 2 x 2 fragments of
// 16 x 16. Per stage of kStageK values of k:
//   As [kBlockM][kStageK + pad]   A's rows of the block, the stage's columns (row-major)
//   Bs [kStageK][kBlockN + pad]   B's rows of the stage, the block's columns (row-major)
// Every warp then adds As[its rows][:] * Bs[:][its columns] to its accumulator fragments.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

// TF32 and BF16 fragments exist from compute capability 8.0 on. Where the code is compiled for
// an older GPU (a build for sm_75 compiles every file for it too), COURSE_WMMA is 0: the kernel
// compiles to nothing there, and the launchers refuse such a GPU before any launch.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define COURSE_WMMA 1
#else
#define COURSE_WMMA 0
#endif

namespace tensor_cores::detail {

constexpr int kBlockM = 64, kBlockN = 64, kStageK = 16;
constexpr int kWarpM = 32, kWarpN = 32;  // each warp: 2 x 2 fragments of 16 x 16
constexpr int kWarps = (kBlockM / kWarpM) * (kBlockN / kWarpN);
constexpr int kThreads = kWarps * 32;

#if COURSE_WMMA
// What changes with the input format: the element in shared memory, the fragment shape's k, and
// the stored widths (each fragment pointer must be 32-byte aligned, each leading dimension a
// multiple of 16 bytes).
struct Tf32 {
  using Element = float;                        // in memory: floats, rounded to TF32 in the fragment
  using FragmentType = nvcuda::wmma::precision::tf32;
  static constexpr int kFragK = 8;              // m16n16k8
  static constexpr int kPadA = 8, kPadB = 8;    // rows of 24 and 72 floats
};
struct Bf16 {
  using Element = __nv_bfloat16;
  using FragmentType = __nv_bfloat16;
  static constexpr int kFragK = 16;             // m16n16k16
  static constexpr int kPadA = 16, kPadB = 16;  // rows of 32 and 80 BF16 values
};

template <class F>
using FragmentA = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, F::kFragK, typename F::FragmentType,
                                         nvcuda::wmma::row_major>;
template <class F>
using FragmentB = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, F::kFragK, typename F::FragmentType,
                                         nvcuda::wmma::row_major>;
template <class F>
using Accumulator = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, F::kFragK, float>;

// YOUR PART (exercises/warp_tile_mma.cuh; 10.3's pipelined GEMM runs it too): adds this stage's As * Bs to the warp's 2 x 2 accumulators.
//   as: As at the warp's first row (leading dimension lda); bs: Bs at the warp's first column
//   (leading dimension ldb); acc[i][j]: the fragment of rows 16 i .. and columns 16 j .. of the
//   warp's tile. Every lane of the warp calls it.
template <class F>
__device__ void warp_tile_mma(const typename F::Element* as, int lda, const typename F::Element* bs, int ldb,
                              Accumulator<F> (&acc)[2][2]);

#else
struct Tf32 {
  using Element = float;
};
struct Bf16 {
  using Element = __nv_bfloat16;
};
#endif

template <class F>
__global__ void __launch_bounds__(kThreads) gemm_wmma_kernel(const typename F::Element* __restrict__ A,
                                                             const typename F::Element* __restrict__ B,
                                                             float* __restrict__ C, int M, int N, int K) {
#if COURSE_WMMA
  using E = typename F::Element;
  constexpr int lda = kStageK + F::kPadA, ldb = kBlockN + F::kPadB, ldc = kBlockN + 4;
  __shared__ __align__(32) E As[kBlockM * lda];
  __shared__ __align__(32) E Bs[kStageK * ldb];
  __shared__ __align__(32) float Cs[kBlockM * ldc];
  const int warp = threadIdx.x / 32, wm = warp / (kBlockN / kWarpN), wn = warp % (kBlockN / kWarpN);
  const int m0 = blockIdx.y * kBlockM, n0 = blockIdx.x * kBlockN;

  Accumulator<F> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += kStageK) {
    // The stage's tiles, zeros outside A and B: a fragment multiplies them like any other value.
    for (int e = threadIdx.x; e < kBlockM * kStageK; e += kThreads) {
      const int r = e / kStageK, c = e % kStageK;
      const int m = m0 + r, k = k0 + c;
      As[r * lda + c] = (m < M && k < K) ? A[size_t(m) * K + k] : E(0.0f);
    }
    for (int e = threadIdx.x; e < kStageK * kBlockN; e += kThreads) {
      const int r = e / kBlockN, c = e % kBlockN;
      const int k = k0 + r, n = n0 + c;
      Bs[r * ldb + c] = (k < K && n < N) ? B[size_t(k) * N + n] : E(0.0f);
    }
    __syncthreads();
    warp_tile_mma<F>(As + wm * kWarpM * lda, lda, Bs + wn * kWarpN, ldb, acc);
    __syncthreads();
  }

  // Through shared memory, so that the edges of C are written element by element.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      nvcuda::wmma::store_matrix_sync(Cs + (wm * kWarpM + 16 * i) * ldc + wn * kWarpN + 16 * j, acc[i][j], ldc,
                                      nvcuda::wmma::mem_row_major);
  __syncthreads();
  for (int e = threadIdx.x; e < kBlockM * kBlockN; e += kThreads) {
    const int r = e / kBlockN, c = e % kBlockN;
    if (m0 + r < M && n0 + c < N) C[size_t(m0 + r) * N + n0 + c] = Cs[r * ldc + c];
  }
#endif
}

}  // namespace tensor_cores::detail
