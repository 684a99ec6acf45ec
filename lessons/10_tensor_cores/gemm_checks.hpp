#pragma once
// Lesson 10 (given, read-only): what every Tensor Core GEMM launcher checks first.
#include <cstdint>

#include "host_layers.hpp"

namespace tensor_cores::detail {

// Throws course::Error naming `what` when M, N or K is below 1 or this GPU has no TF32 and BF16
// Tensor Cores (tensor_core_problem), before any work.
void check_tensor_core_gemm(const char* what, int M, int N, int K);

// Throws course::Error naming `what` when a size of s is below 1, the output has no pixels, the
// padding is negative, a tensor has 2^31 elements or more, or this GPU has no BF16 Tensor Cores;
// for the input gradient (backward) also unless stride is 1, the kernel square and pad <= kh - 1.
void check_conv_mma(const char* what, const host_layers::ConvShape& s, bool backward);

// Whether the rows of a row-major matrix at `p` with `row_elements` elements of `element_bytes`
// each all start on 16-byte boundaries: then cp.async can copy them 16 bytes at a time.
inline bool rows_16_byte_aligned(const void* p, int row_elements, int element_bytes) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && (row_elements * element_bytes) % 16 == 0;
}

}  // namespace tensor_cores::detail
