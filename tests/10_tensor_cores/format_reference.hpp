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

// FP16 by its definition: the value of a pattern, then the nearest pattern by binary search over
// the positive finite ones (their values grow with their patterns, 0 .. 0x7bff).
inline double fp16_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                         : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                                          : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}
inline uint16_t reference_fp16(float x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7e00;
  const double a = std::fabs(double(x));
  uint32_t lo = 0, hi = 0x7bff;  // the largest h with value(h) <= a, capped at the largest finite
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if (fp16_value(uint16_t(mid)) <= a) lo = mid;
    else hi = mid - 1;
  }
  const double below = fp16_value(uint16_t(lo));
  const double above = lo == 0x7bff ? 65536.0 : fp16_value(uint16_t(lo + 1));  // 0x7c00 stands for 2^16
  if (a == below) return uint16_t(sign | lo);
  const double d_below = a - below, d_above = above - a;
  const uint32_t pick = d_below < d_above ? lo : d_above < d_below ? lo + 1 : ((lo & 1) ? lo + 1 : lo);
  return uint16_t(sign | (pick > 0x7bff ? 0x7c00 : pick));
}
inline float reference_tf32(float x) { return bits_float(reference_round(x, 13)); }

}  // namespace course::test
