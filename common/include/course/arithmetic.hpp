#pragma once
// Integer arithmetic every lesson needs, written once: how many blocks of size `b` cover `a`
// items (a grid's block count, a split's chunk count), and `a` rounded up to a multiple of `b`
// (an aligned size). For a >= 0 and b > 0; usable in host and device code.
#include <type_traits>

#if defined(__CUDACC__)
#define COURSE_HOST_DEVICE __host__ __device__
#else
#define COURSE_HOST_DEVICE
#endif

namespace course {

template <typename T>
COURSE_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  static_assert(std::is_integral_v<T>, "ceil_div is for integers");
  return (a + b - 1) / b;
}

template <typename T>
COURSE_HOST_DEVICE constexpr T round_up(T a, T b) {
  return ceil_div(a, b) * b;
}

}  // namespace course

#undef COURSE_HOST_DEVICE
