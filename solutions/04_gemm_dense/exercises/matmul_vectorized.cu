// Lesson 04, step 04.5: vectorised loads. The block tile and register tile of 04.4, but A's tile
// lies transposed in shared memory (As[k][m], the loaders of tile_loads.cuh), so both operands
// are read along shared rows, four floats at a time (float4), and the global loads are float4
// where that is safe.
//
// Thread -> data mapping (tx = tid % 16, ty = tid / 16):
//   rows of C   m0 + ty*4 + {0..3}  and  m0 + 64 + ty*4 + {0..3}
//   columns     n0 + tx*4 + {0..3}  and  n0 + 64 + tx*4 + {0..3}
// Two groups of 4 instead of 8 neighbours: a quarter-warp then reads 8 consecutive float4 of
// shared memory (128 bytes, no bank conflict), and C is written as float4 rows.
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "matmul_launchers.hpp"
#include "tile_loads.cuh"

namespace gemm_dense {

namespace {

using namespace tiles;

// C[M x N] = op(A) * op(B) (+ beta * C); beta == 0 never reads C, so a C full of NaN is
// overwritten cleanly. One shared buffer: load, barrier, multiply, barrier.
template <Layout kLayoutA, Layout kLayoutB, bool kVecLoads, bool kVecStore>
__global__ void __launch_bounds__(kThreads, 2)
    vectorized_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                      int K, float beta) {
  __shared__ __align__(16) float As[kBK][kPitch];  // As[k][m]
  __shared__ __align__(16) float Bs[kBK][kPitch];  // Bs[k][n]

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;

  float4 ra[kLoadsA], rb[kLoadsB];
  for (int k0 = 0; k0 < K; k0 += kBK) {
    load_tile<kLayoutA, kVecLoads>(A, M, K, m0, k0, K, ra);
    load_tile<kLayoutB, kVecLoads>(B, N, K, n0, k0, K, rb);
    store_tile<kLayoutA>(ra, As);
    store_tile<kLayoutB>(rb, Bs);
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&As[k][kBM / 2 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[k][kBN / 2 + tx * 4]);
      const float a[kTM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float b[kTN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // everyone is done reading before the next stage overwrites the tiles
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

template <Layout kLayoutA, Layout kLayoutB>
void vectorized_product(const char* what, const float* A, const float* B, float* C, int M, int N, int K, float beta) {
  if (!detail::check_matmul_sizes(what, M, N, K)) return;
  const dim3 grid(detail::blocks_for(N, kBN), detail::blocks_for(M, kBM));
  detail::check_grid_rows(what, grid.y);
  // float4 loads need the contiguous extent of each operand to be a multiple of 4 (so a float4
  // never straddles the matrix edge or a row end) and 16-byte aligned base pointers; float4
  // stores need N % 4 == 0 and an aligned C.
  const int contiguous_a = kLayoutA == Layout::k_contiguous ? K : M;
  const int contiguous_b = kLayoutB == Layout::k_contiguous ? K : N;
  const bool vec_loads = contiguous_a % 4 == 0 && contiguous_b % 4 == 0 && detail::aligned16(A) && detail::aligned16(B);
  const bool vec_store = N % 4 == 0 && detail::aligned16(C);
  if (vec_loads && vec_store)
    vectorized_kernel<kLayoutA, kLayoutB, true, true><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  else if (vec_loads)
    vectorized_kernel<kLayoutA, kLayoutB, true, false><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  else if (vec_store)
    vectorized_kernel<kLayoutA, kLayoutB, false, true><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  else
    vectorized_kernel<kLayoutA, kLayoutB, false, false><<<grid, kThreads>>>(A, B, C, M, N, K, beta);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace detail {
void matmul_vectorized(const char* what, Layout a, Layout b, const float* A, const float* B, float* C, int M, int N,
                       int K, float beta) {
  if (a == Layout::k_contiguous && b == Layout::p_contiguous)
    vectorized_product<Layout::k_contiguous, Layout::p_contiguous>(what, A, B, C, M, N, K, beta);
  else if (a == Layout::k_contiguous && b == Layout::k_contiguous)
    vectorized_product<Layout::k_contiguous, Layout::k_contiguous>(what, A, B, C, M, N, K, beta);
  else if (a == Layout::p_contiguous && b == Layout::p_contiguous)
    vectorized_product<Layout::p_contiguous, Layout::p_contiguous>(what, A, B, C, M, N, K, beta);
  else
    throw course::Error(std::string(what) + ": A p-contiguous with B k-contiguous is not built");
}
}  // namespace detail

}  // namespace gemm_dense
