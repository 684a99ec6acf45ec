// Lesson 07, steps 07.3 and 07.4: convolution forward and backward as GEMMs. YOUR FILE.
// The GEMMs are lesson 04's (gemm_dense.hpp, device pointers, row-major):
//   gemm_dense::matmul(MatmulKernel::double_buffered, A, B, C, M, N, K)  C = A*B,    A MxK, B KxN
//   gemm_dense::matmul_a_bt(A, B, C, M, N, K)                             C = A*B^T,  B is NxK
//   gemm_dense::matmul_at_b(A, B, C, M, N, K)                             C = A^T*B,  A is KxM
// Sizes: K = C*kh*kw (col_rows), P = N*OH*OW (col_cols), O = out_channels, HW = OH*OW.
//   forward   Y'   [O x P] = W [O x K] * col [K x P]          then y = permute(Y') + bias
//   backward  dW   [O x K] = dY' [O x P] * col^T
//             dcol [K x P] = W^T * dY'                         then dx = col2im(dcol)
//             dbias [O]    = row sums of dY'
// Workspace (conv_gemm_workspace_floats): col (K*P floats) first, then Y' / dY' (O*P floats).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_dense.hpp"
#include "im2col.hpp"

namespace im2col {

constexpr int kPermuteThreads = 256;
[[maybe_unused]] constexpr int kSumThreads = 256;  // row_sums_kernel's shared array has this many slots

__global__ void add_bias_permute_kernel(const float* __restrict__ Yt, const float* __restrict__ bias,
                                        float* __restrict__ y, int N, int O, int HW) {
  // TODO(07.3): y [N, O, HW] = Y' [O x P] (column q = n*HW + p) moved to NCHW, plus bias[o]:
  //   y[(n*O + o)*HW + p] = Yt[(o*N + n)*HW + p] + bias[o]      for every element (grid-stride, int64_t).
}

__global__ void permute_to_rows_kernel(const float* __restrict__ dy, float* __restrict__ dYt, int N, int O,
                                       int HW) {
  // TODO(07.4): the inverse of the forward permute, for every element (grid-stride, int64_t):
  //   dYt[(o*N + n)*HW + p] = dy[(n*O + o)*HW + p]
}

__global__ void row_sums_kernel(const float* __restrict__ m, float* __restrict__ sums, int64_t cols) {
  // TODO(07.4): launched with one block of kSumThreads threads per row (gridDim.x rows of `cols`
  // floats): sums[blockIdx.x] = the sum of row blockIdx.x of m. No atomics: a fixed order, the same
  // bits every run. If you share partial sums through __shared__ memory, every thread of the block must
  // reach every __syncthreads() (no early return before one).
}

namespace {

[[maybe_unused]] int blocks_for(int64_t work) {
  return static_cast<int>(std::min<int64_t>((work + kPermuteThreads - 1) / kPermuteThreads, 65535 * 8));
}

// lesson 04's matmul takes int sizes: refuse shapes whose matrices it cannot index.
[[maybe_unused]] void check_gemm_sizes(const ConvShape& s, const char* who) {
  if (s.out_h() < 1 || s.out_w() < 1)
    throw course::Error(std::string(who) + ": the kernel is larger than the padded image");
  if (col_rows(s) > size_t(INT_MAX) || col_cols(s) > size_t(INT_MAX))
    throw course::Error(std::string(who) + ": the column matrix is too large for int-sized GEMMs");
}

}  // namespace

void conv2d_forward_gemm(const ConvShape& /*s*/, const float* /*x*/, const float* /*W*/,
                         const float* /*bias*/, float* /*y*/, float* /*workspace*/) {
  // TODO(07.3): y = conv(x, W) + bias, every element overwritten, through im2col_gpu, ONE lesson 04
  // GEMM (Y' = W * col) and add_bias_permute_kernel. Before any work, refuse with course::Error
  // (check_gemm_sizes) a kernel that does not fit the padded image (no output) and matrices too
  // large for int-sized GEMMs. Workspace: col = workspace, Yt = workspace + col_size(s); its
  // contents on entry do not matter.
  course::todo("07.3", "conv2d_forward_gemm (im2col, one GEMM, bias + permute)");
}

void conv2d_backward_gemm(const ConvShape& /*s*/, const float* /*x*/, const float* /*W*/, const float* /*dy*/,
                          float* /*dx*/, float* /*dW*/, float* /*dbias*/, float* /*workspace*/) {
  // TODO(07.4): dx, dW and dbias of y = conv(x, W) + bias, all three overwritten, through
  // im2col_gpu, permute_to_rows_kernel, lesson 04's matmul_a_bt (dW) and matmul_at_b (dcol),
  // row_sums_kernel (dbias) and col2im_gpu (dx). Refuse the same shapes as the forward pass
  // (check_gemm_sizes, before any work). Workspace: col = workspace, dYt = workspace + col_size(s);
  // its contents on entry do not matter. dcol may reuse col's memory only after col's last reader.
  course::todo("07.4", "conv2d_backward_gemm (permute, two GEMMs, row sums, col2im)");
}

}  // namespace im2col
