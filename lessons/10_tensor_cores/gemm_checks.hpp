#pragma once
// Lesson 10 (given, read-only): what every Tensor Core GEMM launcher checks first.
#include <cstdint>

namespace tensor_cores::detail {

// Throws course::Error naming `what` when M, N or K is below 1 or this GPU has no TF32 and BF16
// Tensor Cores (tensor_core_problem), before any work.
void check_tensor_core_gemm(const char* what, int M, int N, int K);

// Whether the rows of a row-major matrix at `p` with `row_elements` elements of `element_bytes`
// each all start on 16-byte boundaries: then cp.async can copy them 16 bytes at a time.
inline bool rows_16_byte_aligned(const void* p, int row_elements, int element_bytes) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && (row_elements * element_bytes) % 16 == 0;
}

}  // namespace tensor_cores::detail
