// Lesson 04, step 04.6: double buffering, the production kernel behind matmul_a_bt, matmul_at_b
// and the dense layer. 04.5's kernel with two shared buffers of each tile: while the block
// multiplies stage s out of one, the global loads of stage s + 1 are already on their way and go
// into the other, so their latency hides behind the math. Block blockIdx.z sums its own slice of
// K (split-K, chosen by the launcher).
#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "matmul_launchers.hpp"
#include "tile_loads.cuh"

namespace gemm_dense {

namespace {

using namespace tiles;

// C[M x N] (+)= op(A) * op(B) over k in [blockIdx.z * k_chunk, min(K, that + k_chunk)).
// gridDim.z > 1 is split-K: slice z writes its partial product to C + z*M*N (a workspace),
// with beta = 0; sum_splits_kernel adds the slices up.
// beta == 0 never reads C, so a C full of NaN is overwritten cleanly.
template <Layout kLayoutA, Layout kLayoutB, bool kVecLoads, bool kVecStore>
__global__ void __launch_bounds__(kThreads, 2)
    double_buffered_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
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
void launch_kernel(bool vec_loads, bool vec_store, dim3 grid, const float* A, const float* B, float* C, int M, int N,
                   int K, int k_chunk, float beta) {
  if (vec_loads && vec_store)
    double_buffered_kernel<kLayoutA, kLayoutB, true, true><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  else if (vec_loads)
    double_buffered_kernel<kLayoutA, kLayoutB, true, false><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  else if (vec_store)
    double_buffered_kernel<kLayoutA, kLayoutB, false, true><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  else
    double_buffered_kernel<kLayoutA, kLayoutB, false, false><<<grid, kThreads>>>(A, B, C, M, N, K, k_chunk, beta);
  CUDA_CHECK_LAUNCH();
}

template <Layout kLayoutA, Layout kLayoutB>
void double_buffered_product(const char* what, const float* A, const float* B, float* C, int M, int N, int K,
                             float beta, bool split_k) {
  if (!detail::check_matmul_sizes(what, M, N, K)) return;
  dim3 grid(detail::blocks_for(N, kBN), detail::blocks_for(M, kBM));
  detail::check_grid_rows(what, grid.y);

  // float4 loads need the contiguous extent of each operand to be a multiple of 4 (so a
  // float4 never straddles the matrix edge or a row end) and 16-byte aligned base pointers.
  const int contiguous_a = kLayoutA == Layout::k_contiguous ? K : M;
  const int contiguous_b = kLayoutB == Layout::k_contiguous ? K : N;
  const bool vec_loads = contiguous_a % 4 == 0 && contiguous_b % 4 == 0 && detail::aligned16(A) && detail::aligned16(B);

  int splits = split_k ? choose_splits(grid.x * grid.y, K) : 1;
  if (splits == 1) {
    launch_kernel<kLayoutA, kLayoutB>(vec_loads, N % 4 == 0 && detail::aligned16(C), grid, A, B, C, M, N, K, K, beta);
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
void matmul_double_buffered(const char* what, Layout a, Layout b, const float* A, const float* B, float* C, int M,
                            int N, int K, float beta, bool split_k) {
  if (a == Layout::k_contiguous && b == Layout::p_contiguous)
    double_buffered_product<Layout::k_contiguous, Layout::p_contiguous>(what, A, B, C, M, N, K, beta, split_k);
  else if (a == Layout::k_contiguous && b == Layout::k_contiguous)
    double_buffered_product<Layout::k_contiguous, Layout::k_contiguous>(what, A, B, C, M, N, K, beta, split_k);
  else if (a == Layout::p_contiguous && b == Layout::p_contiguous)
    double_buffered_product<Layout::p_contiguous, Layout::p_contiguous>(what, A, B, C, M, N, K, beta, split_k);
  else
    throw course::Error(std::string(what) + ": A p-contiguous with B k-contiguous is not built");
}
}  // namespace detail

}  // namespace gemm_dense
