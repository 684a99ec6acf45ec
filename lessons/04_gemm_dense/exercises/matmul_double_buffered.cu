// Lesson 04, step 04.6: double buffering; the production kernel behind matmul_a_bt,
// matmul_at_b and the dense layer. YOUR FILE. Fill in the kernel; it uses your load_tile and
// store_tile of 04.5. The launchers (split-K included) are written.
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

// C[M x N] = op(A) * op(B) + beta * C over k in [k_begin, k_end), k_begin = blockIdx.z * k_chunk,
// k_end = min(K, k_begin + k_chunk). gridDim.z > 1 is split-K: slice z writes to C + z * M * N
// (a workspace the launcher sums up) with beta = 0.
template <Layout kLayoutA, Layout kLayoutB, bool kVecLoads, bool kVecStore>
__global__ void __launch_bounds__(kThreads, 2)
    double_buffered_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K, int k_chunk, float beta) {
  // TODO(04.6): 04.5's kernel (same tiles, same thread -> data mapping, same epilogue) with two
  // shared buffers of each tile: the global loads of stage s + 1 are issued before the math of
  // stage s and stored into the other buffer after it; one __syncthreads per stage.
  //   * Slice blockIdx.z sums k over [k_begin, k_end) only and writes to C + blockIdx.z * M * N
  //     (size_t): split-K slices write their own partial products (then beta == 0).
  //   * Any M, N, K; beta == 0 never reads C; kVecStore as in 04.5.
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
