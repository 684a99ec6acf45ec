// Lesson 04: gemm_dense::matmul picks one rung of the ladder; the size checks every launcher
// shares. (Read-only: the kernels are in exercises/.)
#include <string>

#include "course/error.hpp"
#include "gemm_dense.hpp"
#include "matmul_launchers.hpp"

namespace gemm_dense {

const char* kernel_name(MatmulKernel k) {
  switch (k) {
    case MatmulKernel::naive: return "naive";
    case MatmulKernel::tiled: return "tiled";
    case MatmulKernel::tile_1d: return "tile_1d";
    case MatmulKernel::tile_2d: return "tile_2d";
    case MatmulKernel::vectorized: return "vectorized";
    case MatmulKernel::double_buffered: return "double_buffered";
  }
  return "unknown";
}

void matmul(MatmulKernel kernel, const float* A, const float* B, float* C, int M, int N, int K) {
  switch (kernel) {
    case MatmulKernel::naive: detail::matmul_naive(A, B, C, M, N, K); return;
    case MatmulKernel::tiled: detail::matmul_tiled(A, B, C, M, N, K); return;
    case MatmulKernel::tile_1d: detail::matmul_1d_tile(A, B, C, M, N, K); return;
    case MatmulKernel::tile_2d: detail::matmul_2d_tile(A, B, C, M, N, K); return;
    case MatmulKernel::vectorized:
      detail::matmul_vectorized("matmul vectorized", detail::Layout::k_contiguous, detail::Layout::p_contiguous, A, B,
                                C, M, N, K, 0.0f);
      return;
    case MatmulKernel::double_buffered:
      detail::matmul_double_buffered("matmul double_buffered", detail::Layout::k_contiguous,
                                     detail::Layout::p_contiguous, A, B, C, M, N, K, 0.0f);
      return;
  }
  throw course::Error("gemm_dense::matmul: unknown kernel " + std::to_string(static_cast<int>(kernel)));
}

namespace detail {

bool check_matmul_sizes(const char* what, int M, int N, int K) {
  if (M < 0 || N < 0 || K < 0)
    throw course::Error(std::string(what) + ": sizes must be >= 0, got M = " + std::to_string(M) +
                        ", N = " + std::to_string(N) + ", K = " + std::to_string(K));
  return M > 0 && N > 0;
}

void check_grid_rows(const char* what, unsigned blocks_y) {
  if (blocks_y > kMaxGridY)
    throw course::Error(std::string(what) + ": " + std::to_string(blocks_y) +
                        " blocks of rows exceed gridDim.y's limit of " + std::to_string(kMaxGridY));
}

}  // namespace detail
}  // namespace gemm_dense
