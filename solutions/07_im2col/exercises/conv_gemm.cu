// Lesson 07, steps 07.3 and 07.4: convolution forward and backward as GEMMs.
// The GEMMs are lesson 04's (gemm_dense, linked from its solutions); this file only
// arranges the data so that each step of the convolution IS a matrix product.
//
//   K = C*kh*kw (one column's length), P = N*OH*OW (number of columns), O = out channels
//   forward   Y'   [O x P] = W [O x K] * col [K x P]          then y = permute(Y') + bias
//   backward  dW   [O x K] = dY' [O x P] * col^T [P x K]
//             dcol [K x P] = W^T [K x O] * dY' [O x P]        then dx = col2im(dcol)
//             dbias [O]    = row sums of dY'
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "course/cuda_check.hpp"
#include "gemm_dense.hpp"
#include "im2col.hpp"

namespace im2col {

constexpr int kPermuteThreads = 256;
constexpr int kSumThreads = 256;  // row_sums_kernel's shared array has this many slots

// y is (N, O, HW); Y' is (O, N, HW) = O x P. Thread t owns y[t]; both the read of Y'
// and the write of y are contiguous along the pixel index p.
__global__ void add_bias_permute_kernel(const float* __restrict__ Yt, const float* __restrict__ bias,
                                        float* __restrict__ y, int N, int O, int HW) {
  const int64_t total = int64_t(N) * O * HW;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int p = static_cast<int>(t % HW);
    const int o = static_cast<int>((t / HW) % O);
    const int n = static_cast<int>(t / (int64_t(HW) * O));
    y[t] = Yt[(int64_t(o) * N + n) * HW + p] + bias[o];
  }
}

// The inverse permutation: dY'[o][n*HW + p] = dy[n][o][p]. Thread t owns dY'[t].
__global__ void permute_to_rows_kernel(const float* __restrict__ dy, float* __restrict__ dYt, int N, int O,
                                       int HW) {
  const int64_t total = int64_t(N) * O * HW;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int p = static_cast<int>(t % HW);
    const int n = static_cast<int>((t / HW) % N);
    const int o = static_cast<int>(t / (int64_t(HW) * N));
    dYt[t] = dy[(int64_t(n) * O + o) * HW + p];
  }
}

// sums[r] = sum of row r of m [rows x cols]. One block per row: each thread adds a
// strided slice (coalesced reads), then a shared-memory tree halves the partial sums.
// Every partial sum has one owner and the tree's order is fixed: deterministic, no atomics.
__global__ void row_sums_kernel(const float* __restrict__ m, float* __restrict__ sums, int64_t cols) {
  __shared__ float partial[kSumThreads];
  const float* row = m + int64_t(blockIdx.x) * cols;
  float sum = 0.0f;
  for (int64_t k = threadIdx.x; k < cols; k += blockDim.x) sum += row[k];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

namespace {

int blocks_for(int64_t work) {
  return static_cast<int>(std::min<int64_t>((work + kPermuteThreads - 1) / kPermuteThreads, 65535 * 8));
}

// lesson 04's matmul takes int sizes: refuse shapes whose matrices it cannot index.
void check_gemm_sizes(const ConvShape& s, const char* who) {
  if (s.out_h() < 1 || s.out_w() < 1)
    throw course::Error(std::string(who) + ": the kernel is larger than the padded image");
  if (col_rows(s) > size_t(INT_MAX) || col_cols(s) > size_t(INT_MAX))
    throw course::Error(std::string(who) + ": the column matrix is too large for int-sized GEMMs");
}

}  // namespace

void conv2d_forward_gemm(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                         float* workspace) {
  check_gemm_sizes(s, "conv2d_forward_gemm");
  const int K = static_cast<int>(col_rows(s)), P = static_cast<int>(col_cols(s)), O = s.out_channels;
  const int HW = s.out_h() * s.out_w();
  float* col = workspace;             // K x P
  float* Yt = workspace + col_size(s);  // O x P
  im2col_gpu(s, x, col);
  gemm_dense::matmul(gemm_dense::MatmulKernel::double_buffered, W, col, Yt, O, P, K);
  const int64_t total = int64_t(O) * P;
  add_bias_permute_kernel<<<blocks_for(total), kPermuteThreads>>>(Yt, bias, y, s.batch, O, HW);
  CUDA_CHECK_LAUNCH();
}

void conv2d_backward_gemm(const ConvShape& s, const float* x, const float* W, const float* dy, float* dx,
                          float* dW, float* dbias, float* workspace) {
  check_gemm_sizes(s, "conv2d_backward_gemm");
  const int K = static_cast<int>(col_rows(s)), P = static_cast<int>(col_cols(s)), O = s.out_channels;
  const int HW = s.out_h() * s.out_w();
  float* col = workspace;               // K x P: col, later dcol
  float* dYt = workspace + col_size(s);  // O x P
  const int64_t total = int64_t(O) * P;

  im2col_gpu(s, x, col);  // recomputed: cheaper than keeping the forward pass's col alive
  permute_to_rows_kernel<<<blocks_for(total), kPermuteThreads>>>(dy, dYt, s.batch, O, HW);
  CUDA_CHECK_LAUNCH();

  // dW [O x K] = dY' [O x P] * col^T: col is stored K x P, exactly the "B is N x K" operand.
  gemm_dense::matmul_a_bt(dYt, col, dW, O, K, P);
  // dbias[o] = sum over all columns of row o of dY'. (gemm_dense::column_sums sums down
  // the columns of a row-major matrix; here the sum runs along rows, so a row reduction.)
  row_sums_kernel<<<O, kSumThreads>>>(dYt, dbias, P);
  CUDA_CHECK_LAUNCH();
  // dcol [K x P] = W^T * dY': W is stored O x K, exactly the "A is K x M" operand. col is
  // no longer needed (dW is done; kernels on one stream run in order), so dcol takes its place.
  float* dcol = col;
  gemm_dense::matmul_at_b(W, dYt, dcol, K, P, O);
  col2im_gpu(s, dcol, dx);
}

}  // namespace im2col
