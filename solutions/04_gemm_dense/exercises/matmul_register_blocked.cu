// Lesson 04, steps 04.3 (register blocking) and 04.4 (the transposed products).
//
// A block of 256 threads computes a 128 x 128 tile of C; each thread computes an 8 x 8 piece
// of it in registers. Per step of K the block stages a 16-deep slice of A and of B in shared
// memory; each thread then reads 8 values of A and 8 of B and does 64 multiply-adds with them,
// so each multiply-add reads 8 times fewer floats from shared memory than in the tiled kernel.
//
// One kernel template serves all three products: an operand is either "k-contiguous" (A of
// A*B, both of A*B^T: consecutive k are neighbours in memory) or "p-contiguous" (B of A*B,
// both of A^T*B: consecutive rows/columns of C are neighbours). The transposes are folded into
// the tile loads: in shared memory every tile is stored the same way, k-major
// (As[k][m], Bs[k][n]), so the compute loop never knows which product it is doing.
//
// Thread -> data mapping (tx = tid % 16, ty = tid / 16):
//   rows of C   m0 + ty*4 + {0..3}  and  m0 + 64 + ty*4 + {0..3}
//   columns     n0 + tx*4 + {0..3}  and  n0 + 64 + tx*4 + {0..3}
// Two groups of 4 instead of 8 neighbours: a quarter-warp then reads 8 consecutive float4 of
// shared memory (128 bytes, no bank conflict), and C is written as float4 rows.
#include <algorithm>
#include <cstdint>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense {

namespace {

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
static_assert(kThreads == 256, "the launch bounds below assume 256 threads");
static_assert(kBK % 4 == 0, "k-contiguous tiles are loaded as float4 along k");
static_assert((kBM * kBK) % (4 * kThreads) == 0 && (kBN * kBK) % (4 * kThreads) == 0,
              "every thread loads the same whole number of float4 per stage");
static_assert(kLoadsA >= 1 && kLoadsB >= 1, "too many threads for the tile");
static_assert(kPitch % 4 == 0, "float4 reads of shared rows need 16-byte alignment");
static_assert(2 * 2 * kBK * kPitch * sizeof(float) <= 48 * 1024, "static shared memory is limited to 48 KiB");

enum class Layout {
  k_contiguous,  // element (p, k) at X[p * K + k]: A of A*B, A and B of A*B^T
  p_contiguous,  // element (p, k) at X[k * P + p]: B of A*B, A and B of A^T*B
};

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
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const bool inside = kLayout == Layout::k_contiguous ? (p < P && k + j < k_end) : (p + j < P && k < k_end);
        v[j] = inside ? X[offset + j] : 0.0f;
      }
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

// C[M x N] (+)= op(A) * op(B) over k in [blockIdx.z * k_chunk, min(K, that + k_chunk)).
// gridDim.z > 1 is split-K: slice z writes its partial product to C + z*M*N (a workspace),
// with beta = 0; sum_splits_kernel adds the slices up.
// beta == 0 never reads C, so a C full of NaN is overwritten cleanly.
template <Layout kLayoutA, Layout kLayoutB, bool kVecLoads, bool kVecStore>
__global__ void __launch_bounds__(kThreads, 2)
    register_blocked_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, int k_chunk, float beta) {
  __shared__ __align__(16) float As[2][kBK][kPitch];  // As[buf][k][m]
  __shared__ __align__(16) float Bs[2][kBK][kPitch];  // Bs[buf][k][n]

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_begin = blockIdx.z * k_chunk;
  const int k_end = min(K, k_begin + k_chunk);
  const int stages = (k_end - k_begin + kBK - 1) / kBK;  // the same for the whole block
  C += size_t(blockIdx.z) * M * N;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;

  // Double buffering: while the block multiplies stage s out of buffer s % 2, each thread
  // already holds stage s + 1 in registers and writes it to the other buffer afterwards.
  // One __syncthreads per stage suffices: buffer s % 2 is rewritten only in stage s + 1,
  // after the barrier that ends stage s, when every thread has finished reading it.
  float4 ra[kLoadsA], rb[kLoadsB];
  if (stages > 0) {
    load_tile<kLayoutA, kVecLoads>(A, M, K, m0, k_begin, k_end, ra);
    load_tile<kLayoutB, kVecLoads>(B, N, K, n0, k_begin, k_end, rb);
    store_tile<kLayoutA>(ra, As[0]);
    store_tile<kLayoutB>(rb, Bs[0]);
    __syncthreads();
  }
  for (int s = 0; s < stages; ++s) {
    const int cur = s & 1;
    const bool has_next = s + 1 < stages;
    if (has_next) {  // issue the global loads early: their latency hides behind the math
      const int k_next = k_begin + (s + 1) * kBK;
      load_tile<kLayoutA, kVecLoads>(A, M, K, m0, k_next, k_end, ra);
      load_tile<kLayoutB, kVecLoads>(B, N, K, n0, k_next, k_end, rb);
    }
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&As[cur][k][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&As[cur][k][kBM / 2 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[cur][k][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[cur][k][kBN / 2 + tx * 4]);
      const float a[kTM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float b[kTN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (has_next) {
      store_tile<kLayoutA>(ra, As[cur ^ 1]);
      store_tile<kLayoutB>(rb, Bs[cur ^ 1]);
    }
    __syncthreads();
  }

  // Epilogue: 8 rows x two groups of 4 columns, each bounds-checked.
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = m0 + (i < 4 ? ty * 4 + i : kBM / 2 + ty * 4 + (i - 4));
    if (row >= M) continue;
    float* c_row = C + size_t(row) * N;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = n0 + h * (kBN / 2) + tx * 4;
      const float v[4] = {acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]};
      if (kVecStore) {  // N % 4 == 0: the float4 is wholly inside or wholly outside
        if (col < N) {
          float4 out = make_float4(v[0], v[1], v[2], v[3]);
          if (beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(c_row + col);
            out.x += beta * old.x;
            out.y += beta * old.y;
            out.z += beta * old.z;
            out.w += beta * old.w;
          }
          *reinterpret_cast<float4*>(c_row + col) = out;
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < N) c_row[col + j] = beta != 0.0f ? v[j] + beta * c_row[col + j] : v[j];
      }
    }
  }
}

// Split-K's second pass: C[i] = sum over z of partial[z][i] (+ beta * C[i]), in a fixed order,
// so results are the same from run to run (atomicAdd would not be).
__global__ void sum_splits_kernel(const float* __restrict__ partial, float* __restrict__ C, size_t count, int splits,
                                  float beta) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int z = 0; z < splits; ++z) sum += partial[size_t(z) * count + i];
    C[i] = beta != 0.0f ? sum + beta * C[i] : sum;
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

int multiprocessor_count() {
  static const int count = [] {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::max(sms, 1);
  }();
  return count;
}

// How many slices to cut K into. A product with few output tiles and a long K (the weight
// gradients: 64 x 800 outputs summed over K = 25088) would otherwise run on a handful of SMs;
// splitting K gives about two blocks per SM, each slice at least kMinSliceK deep.
constexpr int kMinSliceK = 128, kMaxSplits = 64;
int choose_splits(unsigned tiles, int K) {
  const int sms = multiprocessor_count();
  if (tiles >= unsigned(sms) || K < 2 * kMinSliceK) return 1;
  const int by_occupancy = int(2u * unsigned(sms) / tiles);
  return std::max(1, std::min({by_occupancy, K / kMinSliceK, kMaxSplits}));
}

// Split-K's partial products. Grown on demand, kept for the next call (stream order makes the
// reuse safe: every use is on the default stream); at most 2 * SMs * 128 * 128 floats.
float* split_workspace(size_t count) {
  static course::DeviceBuffer<float> workspace;
  if (workspace.size() < count) workspace = course::DeviceBuffer<float>(count);  // cudaFree waits for the GPU
  return workspace.data();
}

template <Layout kLayoutA, Layout kLayoutB>
void launch_kernel(bool vec_loads, bool vec_store, dim3 grid, const float* A, const float* B, float* C, int M,
                   int N, int K, int k_chunk, float beta) {
  if (vec_loads && vec_store)
    register_blocked_kernel<kLayoutA, kLayoutB, true, true><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  else if (vec_loads)
    register_blocked_kernel<kLayoutA, kLayoutB, true, false><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  else if (vec_store)
    register_blocked_kernel<kLayoutA, kLayoutB, false, true><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  else
    register_blocked_kernel<kLayoutA, kLayoutB, false, false><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  CUDA_CHECK_LAUNCH();
}

template <Layout kLayoutA, Layout kLayoutB>
void register_blocked_product(const char* what, const float* A, const float* B, float* C, int M, int N, int K,
                              float beta) {
  if (!detail::check_matmul_sizes(what, M, N, K)) return;
  dim3 grid(detail::blocks_for(N, kBN), detail::blocks_for(M, kBM));
  detail::check_grid_rows(what, grid.y);

  // float4 loads need the contiguous extent of each operand to be a multiple of 4 (so a
  // float4 never straddles the matrix edge or a row end) and 16-byte aligned base pointers.
  const int contiguous_a = kLayoutA == Layout::k_contiguous ? K : M;
  const int contiguous_b = kLayoutB == Layout::k_contiguous ? K : N;
  const bool vec_loads = contiguous_a % 4 == 0 && contiguous_b % 4 == 0 && aligned16(A) && aligned16(B);

  int splits = choose_splits(grid.x * grid.y, K);
  if (splits == 1) {
    launch_kernel<kLayoutA, kLayoutB>(vec_loads, N % 4 == 0 && aligned16(C), grid, A, B, C, M, N, K, K, beta);
    return;
  }
  // Slices are a whole number of stages deep, so every slice starts at a multiple of 4 in k
  // (float4 loads stay aligned); recount the slices after rounding.
  const int per_slice = int((static_cast<long long>(K) + splits - 1) / splits);
  const int k_chunk = (per_slice + kBK - 1) / kBK * kBK;
  splits = int((static_cast<long long>(K) + k_chunk - 1) / k_chunk);
  grid.z = unsigned(splits);
  const size_t count = size_t(M) * N;
  float* partial = split_workspace(count * size_t(splits));
  launch_kernel<kLayoutA, kLayoutB>(vec_loads, N % 4 == 0, grid, A, B, partial, M, N, K, k_chunk, 0.0f);
  const int threads = 256;
  const int blocks = int(std::min<size_t>((count + threads - 1) / threads, 4096));
  sum_splits_kernel<<<blocks, threads>>>(partial, C, count, splits, beta);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace detail {
void matmul_register_blocked(const float* A, const float* B, float* C, int M, int N, int K) {
  register_blocked_product<Layout::k_contiguous, Layout::p_contiguous>("matmul register_blocked", A, B, C, M, N, K,
                                                                       0.0f);
}
}  // namespace detail

// A [M x K] is k-contiguous; B [N x K] holds column n of B^T as its row n: k-contiguous too.
void matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  register_blocked_product<Layout::k_contiguous, Layout::k_contiguous>("matmul_a_bt", A, B, C, M, N, K, beta);
}

// A [K x M] holds row m of A^T as its column m: p-contiguous; B [K x N] as in A*B.
void matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  register_blocked_product<Layout::p_contiguous, Layout::p_contiguous>("matmul_at_b", A, B, C, M, N, K, beta);
}

}  // namespace gemm_dense
