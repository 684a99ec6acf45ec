#pragma once
// Lesson 09 (given, read-only): one GEMM engine for every implicit-GEMM kernel of the lesson.
//
//   C[M x N] = A[M x K] * B[K x N]
//
// It is lesson 04's last rung (a BM x BN tile of C per block, a TM x TN tile per thread held in
// registers, BK-deep stages through two shared-memory buffers, the next stage's global loads
// issued before this stage's math) with one change: it never reads A, B or C itself. A "gather"
// object says where each element lives and where each result goes, so the same engine computes a
// convolution straight from NCHW tensors, with no im2col matrix in memory. The gathers are what
// you write (exercises/conv_implicit_*.cu).
//
// The gather interface (all __device__, all cheap: they run once per element per stage):
//   ACtx a_row(int m)                  per row m of A, computed once per block
//   AKey a_key(int k)                  per k of A, computed once per stage (shared by the rows)
//   float a_load(ACtx, AKey)           A(m, k), or 0 outside [0, M) x [0, K)
//   BCtx b_column(int n)               per column n of B, computed once per block
//   BKey b_key(int k)                  per k of B, computed once per stage
//   float b_load(BCtx, BKey)           B(k, n), or 0 outside [0, K) x [0, N)
//   void store(int m, int n, float c)  writes C(m, n) (called for every m < M, n < N of the tile)
//   static constexpr bool kKeyTable    true: the engine fills a shared table of b_key_entry(k)
//                                      for k < K once per block, and b_key reads it
//   int2 b_key_entry(int k)            (only with kKeyTable) what b_key(k) needs, packed
//   BKey b_key(int k, const int2* t)   (only with kKeyTable) b_key from the table
// Which thread loads what:
//   A: Tile::kAAlongK true (the default): k runs fastest over the threads (a thread's k inside a
//      stage is fixed, its rows vary): coalesced when A(m, k) and A(m, k + 1) are neighbours in
//      memory; false: m runs fastest (a thread's row is fixed, its k vary), for an A whose
//      neighbours in memory are A(m, k) and A(m + 1, k).
//   B: Tile::kBAlongK false: n runs fastest (a thread's column is fixed, its k vary): coalesced
//      when B(k, n) and B(k, n + 1) are neighbours; true: k runs fastest, like A.
// Split-K: blockIdx.z takes k in [z * k_chunk, min(K, (z + 1) * k_chunk)); the gather's store
// sees blockIdx.z and writes that slice's partial result where the launcher will add it up.
// The math of a stage (what the block does with its tiles in shared memory) is a policy:
// FfmaMath, this lesson's FP32 register tile, is the default of launch_implicit_gemm. A policy has
// kPad (the tiles' row padding), prepare(v) (a value on its way into shared memory), stage(As, Bs,
// tid) and store(g, m0, n0, M, N, tid); loads, stages, split-K and the gather's epilogue do not
// depend on it, so another arithmetic plugs in without touching them.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "fast_training.hpp"

namespace fast_training {

template <int BM_, int BN_, int BK_, int TM_, int TN_, bool kBAlongK_, bool kAAlongK_ = true>
struct Tile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr bool kBAlongK = kBAlongK_, kAAlongK = kAAlongK_;
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static constexpr int kLoadsA = BM * BK / kThreads, kLoadsB = BN * BK / kThreads;
  static_assert(BM % TM == 0 && BN % TN == 0, "whole thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a thread reads its rows and columns as float4");
  static_assert(BM % (TM / 4 * 4) == 0 && BN % (TN / 4 * 4) == 0, "groups of 4 spread evenly");
  static_assert(BM * BK % kThreads == 0 && BN * BK % kThreads == 0, "whole loads per thread");
  static_assert(kThreads % BK == 0, "A (and B along k): a thread's k is the same in every load");
  static_assert(kAAlongK || kThreads % BM == 0, "A along m: a thread's row is the same in every load");
  static_assert(kBAlongK || kThreads % BN == 0, "B along n: a thread's column is the same in every load");
  static_assert(kThreads <= 1024, "threads per block");
};

// ---- the math of a stage: what the engine does with the tiles in shared memory ------------------
// The tiles: As[k][m] and Bs[k][n], rows of BM + kPad (BN + kPad) floats.
//
// FfmaMath: lesson 04's register tile, TM x TN per thread, FP32 fused
// multiply-adds. A thread's rows: TM/4 groups of 4, spread BM/(TM/4) apart (columns likewise): a
// quarter warp then reads 8 neighbouring float4 of a shared row, free of bank conflicts.
template <class T>
struct FfmaMath {
  static constexpr int kPad = 4;  // the transposed stores fall into different banks; rows stay 16-byte aligned
  static constexpr int kRowGroups = T::TM / 4, kColGroups = T::TN / 4;
  float acc[T::TM][T::TN] = {};
  __device__ static float prepare(float v) { return v; }
  template <class AT, class BT>
  __device__ void stage(const AT& As, const BT& Bs, int tid) {
    const int tx = tid % (T::BN / T::TN), ty = tid / (T::BN / T::TN);
#pragma unroll
    for (int k = 0; k < T::BK; ++k) {
      float a[T::TM], b[T::TN];
#pragma unroll
      for (int g4 = 0; g4 < kRowGroups; ++g4) {
        const float4 v = *reinterpret_cast<const float4*>(&As[k][g4 * (T::BM / kRowGroups) + ty * 4]);
        a[g4 * 4 + 0] = v.x, a[g4 * 4 + 1] = v.y, a[g4 * 4 + 2] = v.z, a[g4 * 4 + 3] = v.w;
      }
#pragma unroll
      for (int g4 = 0; g4 < kColGroups; ++g4) {
        const float4 v = *reinterpret_cast<const float4*>(&Bs[k][g4 * (T::BN / kColGroups) + tx * 4]);
        b[g4 * 4 + 0] = v.x, b[g4 * 4 + 1] = v.y, b[g4 * 4 + 2] = v.z, b[g4 * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < T::TM; ++i)
#pragma unroll
        for (int j = 0; j < T::TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
  template <class G>
  __device__ void store(const G& g, int m0, int n0, int M, int N, int tid) const {
    const int tx = tid % (T::BN / T::TN), ty = tid / (T::BN / T::TN);
#pragma unroll
    for (int i = 0; i < T::TM; ++i)
#pragma unroll
      for (int j = 0; j < T::TN; ++j) {
        const int m = m0 + (i / 4) * (T::BM / kRowGroups) + ty * 4 + i % 4;
        const int n = n0 + (j / 4) * (T::BN / kColGroups) + tx * 4 + j % 4;
        if (m < M && n < N) g.store(m, n, acc[i][j]);
      }
  }
};

template <class T, class G, class Math = FfmaMath<T>>
__global__ void __launch_bounds__(T::kThreads) implicit_gemm_kernel(G g, int M, int N, int K, int k_chunk) {
  constexpr int BM = T::BM, BN = T::BN, BK = T::BK, NT = T::kThreads;
  constexpr int LA = T::kLoadsA, LB = T::kLoadsB;
  __shared__ __align__(16) float As[2][BK][BM + Math::kPad];
  __shared__ __align__(16) float Bs[2][BK][BN + Math::kPad];
  extern __shared__ int2 key_table[];
  if constexpr (G::kKeyTable) {
    for (int k = threadIdx.x; k < K; k += NT) key_table[k] = g.b_key_entry(k);
    __syncthreads();
  }
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int k_begin = blockIdx.z * k_chunk, k_end = min(K, k_begin + k_chunk);
  const int k_lane = tid % BK;  // this thread's k inside a stage (A, and B along k)
  typename G::ACtx a_ctx[T::kAAlongK ? LA : 1];
  if constexpr (T::kAAlongK) {
#pragma unroll
    for (int i = 0; i < LA; ++i) a_ctx[i] = g.a_row(m0 + (tid + i * NT) / BK);
  } else {
    a_ctx[0] = g.a_row(m0 + tid % BM);
  }
  typename G::BCtx b_ctx[T::kBAlongK ? LB : 1];
  if constexpr (T::kBAlongK) {
#pragma unroll
    for (int i = 0; i < LB; ++i) b_ctx[i] = g.b_column(n0 + (tid + i * NT) / BK);
  } else {
    b_ctx[0] = g.b_column(n0 + tid % BN);
  }
  auto b_key = [&](int k) {
    if constexpr (G::kKeyTable) return g.b_key(k, key_table);
    else return g.b_key(k);
  };

  float ra[LA], rb[LB];  // the next stage, on its way from global memory
  auto load_stage = [&](int k0) {
    const int ka = k0 + k_lane;
    if constexpr (T::kAAlongK) {
      const bool a_in = ka < k_end;
      const auto akey = g.a_key(a_in ? ka : K);  // K: past the end, reads as 0
#pragma unroll
      for (int i = 0; i < LA; ++i) ra[i] = a_in ? g.a_load(a_ctx[i], akey) : 0.0f;
    } else {
#pragma unroll
      for (int i = 0; i < LA; ++i) {
        const int k = k0 + tid / BM + i * (NT / BM);
        ra[i] = k < k_end ? g.a_load(a_ctx[0], g.a_key(k)) : 0.0f;
      }
    }
    if constexpr (T::kBAlongK) {
      const bool b_in = ka < k_end;
      const auto bkey = b_key(b_in ? ka : K);
#pragma unroll
      for (int i = 0; i < LB; ++i) rb[i] = b_in ? g.b_load(b_ctx[i], bkey) : 0.0f;
    } else {
#pragma unroll
      for (int i = 0; i < LB; ++i) {
        const int kb = k0 + tid / BN + i * (NT / BN);
        rb[i] = kb < k_end ? g.b_load(b_ctx[0], b_key(kb)) : 0.0f;
      }
    }
  };
  auto store_stage = [&](int buf) {
#pragma unroll
    for (int i = 0; i < LA; ++i) {
      if constexpr (T::kAAlongK) As[buf][k_lane][(tid + i * NT) / BK] = Math::prepare(ra[i]);
      else As[buf][tid / BM + i * (NT / BM)][tid % BM] = Math::prepare(ra[i]);
    }
#pragma unroll
    for (int i = 0; i < LB; ++i) {
      if constexpr (T::kBAlongK) Bs[buf][k_lane][(tid + i * NT) / BK] = Math::prepare(rb[i]);
      else Bs[buf][tid / BN + i * (NT / BN)][tid % BN] = Math::prepare(rb[i]);
    }
  };

  Math math;
  int buf = 0;
  if (k_begin < k_end) {
    load_stage(k_begin);
    store_stage(0);
    __syncthreads();
  }
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) load_stage(k0 + BK);  // in flight while this stage computes
    math.stage(As[buf], Bs[buf], tid);
    // The other buffer was last read in the previous stage, before its closing barrier.
    if (more) store_stage(buf ^ 1);
    __syncthreads();
    buf ^= 1;
  }
  math.store(g, m0, n0, M, N, tid);
}

// Blocks needed to cover n items, per_block at a time.
inline unsigned blocks_of(long long n, long long per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}


template <class T, class G, class Math>
void launch_implicit_gemm_with(const G& g, int M, int N, int K, int k_chunk, cudaStream_t stream) {
  const size_t table_bytes = G::kKeyTable ? size_t(K) * sizeof(int2) : 0;
  auto kernel = implicit_gemm_kernel<T, G, Math>;
  const size_t tiles = 2 * T::BK * ((T::BM + Math::kPad) + (T::BN + Math::kPad)) * sizeof(float);  // static
  if (table_bytes + tiles > 48 * 1024) {
    // Above 48 KiB in all (the tiles and the table) a kernel must ask for its dynamic shared memory,
    // up to what the GPU allows.
    int device = 0, allowed = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&allowed, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (table_bytes + tiles > size_t(allowed))
      throw course::Error("implicit GEMM: K = " + std::to_string(K) + " keys do not fit this GPU's shared memory");
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(table_bytes)));
  }
  // A grid holds at most 65535 blocks in y and z: a product past that is refused in one line.
  const dim3 grid(blocks_of(N, T::BN), blocks_of(M, T::BM), blocks_of(K, k_chunk));
  if (grid.y > 65535 || grid.z > 65535)
    throw course::Error("implicit GEMM: " + std::to_string(M) + " rows in tiles of " + std::to_string(T::BM) +
                        " and K = " + std::to_string(K) + " in chunks of " + std::to_string(k_chunk) +
                        " need more than the 65535 blocks a grid holds in y or z");
  kernel<<<grid, T::kThreads, table_bytes, stream>>>(g, M, N, K, k_chunk);
  CUDA_CHECK_LAUNCH();
}

// Launches the engine over C[M x N] with K split into chunks of k_chunk (a multiple of T::BK;
// k_chunk >= K: no split), each stage multiplied by the math policy Math<T> (FfmaMath: this
// lesson's FP32 register tile). Nothing to compute (M, N or K is 0): launches nothing.
template <class T, template <class> class Math = FfmaMath, class G>
void launch_implicit_gemm(const G& g, int M, int N, int K, int k_chunk, cudaStream_t stream = nullptr) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  launch_implicit_gemm_with<T, G, Math<T>>(g, M, N, K, k_chunk, stream);
}

// For a gather that splits its reduction and finishes in a second pass: partial[z][m][n] holds
// slice z's sums (z < slices); this adds them in the order z = 0, 1, ... (the same bits on every
// run) and hands each total to g.finish(m, n, total), the gather's epilogue.
template <class G>
__global__ void finish_slices_kernel(G g, const float* __restrict__ partial, int slices, int M, int N) {
  const size_t count = size_t(M) * N;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < count; e += size_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int z = 0; z < slices; ++z) sum += partial[z * count + e];
    g.finish(int(e / N), int(e % N), sum);
  }
}

template <class G>
void launch_finish_slices(const G& g, const float* partial, int slices, int M, int N, cudaStream_t stream = nullptr) {
  const size_t count = size_t(M) * N;
  if (count == 0) return;
  const unsigned blocks = unsigned(count / 256 + 1 < 4096 ? count / 256 + 1 : 4096);
  finish_slices_kernel<<<blocks, 256, 0, stream>>>(g, partial, slices, M, N);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fast_training
