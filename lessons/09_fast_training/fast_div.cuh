#pragma once
// Lesson 09 (given, read-only): n / d for a divisor d fixed per launch, by a multiply and a shift.
// A gather splits flat indices into coordinates (p -> image, row, column) once per element per
// stage; the hardware has no integer divider, and a division by a run-time d costs about twenty
// instructions, a multiply-high and a shift two.
//
// With l = ceil(log2 d) and m = ceil(2^(32 + l) / d) (a 33-bit number: 2^32 <= m < 2^33),
//   n / d = floor(n * m / 2^(32 + l)) = (umulhi(n, m - 2^32) + n) >> l   for 0 <= n < 2^31,
// because the error of m, n * (m - 2^(32 + l) / d) / 2^(32 + l) < n / 2^(32 + l) <= 1 / (2d), stays
// below the 1/d gap between n/d and the next integer. The sum fits 32 bits: both parts < 2^31.
#include <cuda_runtime.h>  // __host__ __device__ for host compilers too

#include <cstdint>

#include "course/error.hpp"

namespace fast_training {

struct FastDiv {
  uint32_t d = 1, magic = 0, shift = 0;
  FastDiv() = default;
  explicit FastDiv(int divisor) {
    if (divisor < 1) throw course::Error("FastDiv: the divisor must be >= 1");
    d = uint32_t(divisor);
    while ((uint64_t(1) << shift) < d) ++shift;
    const uint64_t m = ((uint64_t(1) << (32 + shift)) + d - 1) / d;
    magic = uint32_t(m - (uint64_t(1) << 32));
  }
  // 0 <= n < 2^31.
  __host__ __device__ int div(int n) const {
#ifdef __CUDA_ARCH__
    return int((__umulhi(uint32_t(n), magic) + uint32_t(n)) >> shift);
#else
    return int(((uint64_t(uint32_t(n)) * magic >> 32) + uint32_t(n)) >> shift);
#endif
  }
};

}  // namespace fast_training
