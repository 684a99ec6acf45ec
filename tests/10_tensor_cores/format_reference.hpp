#pragma once
// Lesson 10's tests: rounding to BF16 and TF32 worked out another way than the exercise's bit
// arithmetic: the two representable neighbours of x and the distances to them, in double.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace course::test {

inline uint32_t float_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The pattern of the number nearest to x among those whose low `drop` bits are 0; ties to the
// one whose last kept bit is 0; NaN -> a quiet NaN of x's sign; a value beyond the largest
// finite one -> Inf (that is where the neighbour above lands).
inline uint32_t reference_round(float x, int drop) {
  const uint32_t u = float_bits(x);
  const uint32_t low_mask = (1u << drop) - 1;
  if (std::isnan(x)) return ((u & 0x80000000u) | 0x7fc00000u) & ~low_mask;
  if (std::isinf(x)) return u;
  const uint32_t below = u & ~low_mask;        // toward zero
  const uint32_t above = below + (1u << drop);  // away from zero (may be Inf)
  if ((u & low_mask) == 0) return u;
  const double d_below = std::fabs(double(x) - double(bits_float(below)));
  // The value "above" stands for: beyond the largest finite it is 2^128 (the next binade's start).
  const double v_above = std::isinf(bits_float(above)) ? std::copysign(std::ldexp(1.0, 128), double(x))
                                                       : double(bits_float(above));
  const double d_above = std::fabs(v_above - double(x));
  if (d_below < d_above) return below;
  if (d_above < d_below) return above;
  return ((below >> drop) & 1u) ? above : below;  // a tie: the even one
}

inline uint16_t reference_bf16(float x) { return uint16_t(reference_round(x, 16) >> 16); }
inline float reference_tf32(float x) { return bits_float(reference_round(x, 13)); }

}  // namespace course::test
