// Lesson 04, steps 04.3 (register blocking) and 04.4 (the transposed products). YOUR FILE.
//
// A block of 256 threads computes a 128 x 128 tile of C; each thread computes an 8 x 8 piece
// of it in registers. Per stage the block copies a 16-deep slice of A (128 x 16) and of B
// (16 x 128) into shared memory; each thread then reads 8 values of A and 8 of B per k and
// does 64 multiply-adds with them: 8 times fewer floats read from shared memory per
// multiply-add than 04.2 (and 32 times fewer load instructions: four float4 per 64 FMAs).
//
// ONE kernel template serves all three products. In memory an operand is either
//   k-contiguous: element (p, k) at X[p * K + k]   (A of A*B)
//   p-contiguous: element (p, k) at X[k * P + p]   (B of A*B)
// where p runs over C's rows (operand A, P = M) or C's columns (operand B, P = N). In shared
// memory every tile is stored the same way, k-major: As[k][m], Bs[k][n]. So only the tile
// loads know the layout; step 04.4 then gets A*B^T and A^T*B from the same kernel.
//
// Thread -> data mapping (tx = threadIdx.x % 16, ty = threadIdx.x / 16):
//   rows of C   m0 + ty*4 + {0..3}  and  m0 + 64 + ty*4 + {0..3}
//   columns     n0 + tx*4 + {0..3}  and  n0 + 64 + tx*4 + {0..3}
// (two groups of 4, half a tile apart: a quarter-warp then reads 8 consecutive float4 of
// shared memory, no bank conflict, and C is written as float4).
//
// Written for you below the kernel: the launchers (grid of 128 x 128 tiles, float4 allowed or
// not, split-K for a long K with few output tiles). Fill in load_tile, store_tile and the kernel.
#include <algorithm>
#include <cstdint>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
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
  k_contiguous,  // element (p, k) at X[p * K + k]: A of A*B
  p_contiguous,  // element (p, k) at X[k * P + p]: B of A*B
};

// Loads this thread's kLoads float4 of the kBK-deep tile of operand X that starts at (p0, k0).
// Elements outside [0, P) x [k0, k_end) must read as 0 (edge tiles then need no special case).
// kVec: the host only sets it when a float4 load is safe (the contiguous extent and k_end are
// multiples of 4, pointers 16-byte aligned): then a float4 is wholly inside or wholly outside.
template <Layout kLayout, bool kVec, int kLoads>
__device__ __forceinline__ void load_tile(const float* __restrict__ X, int P, int K, int p0, int k0, int k_end,
                                          float4 (&r)[kLoads]) {
  // TODO(04.3): fill r with this thread's kLoads groups of 4 consecutive elements (4 along k
  // when k-contiguous, 4 along p when p-contiguous) of the kBM x kBK tile at (p0, k0); the
  // kThreads threads together cover the whole tile once. Elements outside [0, P) x [k0, k_end)
  // are 0, never read. kVec true: one float4 load per group; false: scalar, bounds-checked
  // loads (X need not be aligned). store_tile must use the same thread -> element mapping.
}

// Writes what load_tile fetched into the k-major shared tile Xs[k][p] (same idx -> (p, k)):
// k-contiguous data is transposed on the way (4 scalar stores Xs[k + j][p]); p-contiguous data
// goes in as one float4 at &Xs[k][p].
template <Layout kLayout, int kLoads>
__device__ __forceinline__ void store_tile(const float4 (&r)[kLoads], float (*Xs)[kPitch]) {
  // TODO(04.3): write the values this thread's load_tile fetched (same mapping) to their
  // places Xs[k - k0][p - p0] of the k-major shared tile, for both layouts.
}

// C[M x N] = op(A) * op(B) (+ beta * C) over k in [k_begin, k_end), k_begin = blockIdx.z * k_chunk,
// k_end = min(K, k_begin + k_chunk). Block (blockIdx.x, blockIdx.y) owns the C tile at
// (m0, n0) = (blockIdx.y * kBM, blockIdx.x * kBN). gridDim.z > 1 is split-K: slice z writes to
// C + z * M * N (a workspace the launcher sums up) with beta = 0.
template <Layout kLayoutA, Layout kLayoutB, bool kVecLoads, bool kVecStore>
__global__ void __launch_bounds__(kThreads, 2)
    register_blocked_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, int k_chunk, float beta) {
  // TODO(04.3): the block's kBM x kBN tile of C, with kThreads threads, each computing a
  // kTM x kTN piece in registers (the mapping at the top of this file), the operands staged
  // kBK deep through the shared tiles with load_tile and store_tile.
  //   * Any M, N, K: edge tiles load zeros (load_tile) and store only the elements inside C.
  //   * Slice blockIdx.z sums k over [k_begin, k_end) only and writes to C + blockIdx.z * M * N
  //     (size_t): split-K slices write their own partial products (then beta == 0).
  //   * beta == 0: C = acc, and C is never read (it may hold NaN); otherwise C = acc + beta * C.
  //   * kVecStore: float4 stores of C are allowed (N % 4 == 0 and C 16-byte aligned).
  //   * No early return: every thread reaches every __syncthreads.
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

void matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  // TODO(04.4): C [M x N] = A * B^T + beta * C with A [M x K] and B [N x K], all row-major
  // device arrays, through your kernel of 04.3 (no transposed copy): replace this line with
  //   register_blocked_product<Layout::?, Layout::?>("matmul_a_bt", A, B, C, M, N, K, beta);
  // naming each operand's Layout. Honour beta; beta == 0 never reads C (it may hold NaN).
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)beta;
  course::todo("04.4", "matmul_a_bt");
}

void matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  // TODO(04.4): C [M x N] = A^T * B + beta * C with A [K x M] and B [K x N], all row-major:
  // the same call as matmul_a_bt above, with this product's name and layouts.
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)beta;
  course::todo("04.4", "matmul_at_b");
}

}  // namespace gemm_dense
