#pragma once
// Include this (never Catch2 directly) in every test: it works with Catch2 v2 and v3
// and adds the course's checks.
#if COURSE_CATCH_MAJOR == 2
#include <catch2/catch.hpp>
#else
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
#endif

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/compare.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"

namespace course::test {

inline std::vector<float> nan_vector(size_t n) { return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()); }

// Uniform values in [lo, hi) from a seed: random and non-uniform, never all equal.
inline std::vector<float> random_vector(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  return course::random_uniform(n, seed, lo, hi);
}
using course::to_double;

// Central difference (f(x+eps) - f(x-eps)) / 2eps of a scalar function of x[i], in double
// (course::central_difference, with the tests' usual eps).
template <typename F>
double numeric_derivative(F&& f, std::vector<double>& x, size_t i, double eps = 1e-6) {
  return course::central_difference(f, x, i, eps);
}

// Each tensor's shape with named dimensions, so a failure says e.g. dx[n=1, c=0, h=3, w=2].
// For lesson 01's ConvShape and PoolShape (and anything with the same fields).
template <typename Conv>
auto input_shape(const Conv& s) -> decltype(s.in_channels, course::Shape{}) {
  return {{"n", size_t(s.batch)}, {"c", size_t(s.in_channels)}, {"h", size_t(s.height)}, {"w", size_t(s.width)}};
}
template <typename Conv>
auto output_shape(const Conv& s) -> decltype(s.out_channels, course::Shape{}) {
  return {{"n", size_t(s.batch)}, {"k", size_t(s.out_channels)}, {"oh", size_t(s.out_h())}, {"ow", size_t(s.out_w())}};
}
template <typename Conv>
course::Shape weight_shape(const Conv& s) {
  return {{"k", size_t(s.out_channels)}, {"c", size_t(s.in_channels)}, {"kh", size_t(s.kernel_h)},
          {"kw", size_t(s.kernel_w)}};
}
template <typename Conv>
course::Shape bias_shape(const Conv& s) {
  return {{"k", size_t(s.out_channels)}};
}
template <typename Pool>
auto input_shape(const Pool& s) -> decltype(s.window, course::Shape{}) {
  return {{"n", size_t(s.batch)}, {"c", size_t(s.channels)}, {"h", size_t(s.height)}, {"w", size_t(s.width)}};
}
template <typename Pool>
auto output_shape(const Pool& s) -> decltype(s.window, course::Shape{}) {
  return {{"n", size_t(s.batch)}, {"c", size_t(s.channels)}, {"oh", size_t(s.out_h())}, {"ow", size_t(s.out_w())}};
}
// A matrix's rows and columns with their names, e.g. matrix("b", batch, "o", out) for a dense y.
inline course::Shape matrix(const char* rows, int r, const char* cols, int c) {
  return {{rows, size_t(r)}, {cols, size_t(c)}};
}

}  // namespace course::test

// Fails the test unless every element is within atol + rtol*|ref| and finite. The message
// names the output (the `got` expression as written, e.g. "dx"), the tolerance and the worst
// element. `got` and `ref` are vectors (or anything with .data() and .size()); sizes must match.
#define REQUIRE_ALL_CLOSE(got, ref, atol, rtol) REQUIRE_TENSOR_CLOSE(got, ref, ::course::Shape{}, atol, rtol)

// The same with the tensor's shape, so the worst element is named by its index in it:
//   REQUIRE_TENSOR_CLOSE(y, y_ref, (course::Shape{{"n", N}, {"c", C}, {"h", H}, {"w", W}}), atol, 0);
#define REQUIRE_TENSOR_CLOSE(got, ref, shape, atol, rtol) REQUIRE_NAMED_CLOSE(#got, got, ref, shape, atol, rtol)

// The same with the output's name given, for helpers whose argument names say nothing ("got").
#define REQUIRE_NAMED_CLOSE(name, got, ref, shape, atol, rtol)                                      \
  do {                                                                                            \
    const auto& course_got_ = (got); /* evaluated once: `got` may be a call that runs a kernel */ \
    const auto& course_ref_ = (ref);                                                              \
    if (course_got_.size() != course_ref_.size()) { /* the sizes are named only when they differ */ \
      INFO(name << " has " << course_got_.size() << " elements, expected " << course_ref_.size()); \
      REQUIRE(course_got_.size() == course_ref_.size());                                          \
    }                                                                                             \
    const ::course::CompareResult course_cmp_ = ::course::compare(                                \
        course_got_.data(), course_ref_.data(), course_got_.size(), ::course::Tolerance{atol, rtol}); \
    INFO(course_cmp_.message(name, shape));                                                       \
    REQUIRE(course_cmp_.ok);                                                                      \
  } while (0)

// The seed a test draws its inputs from, shown with a failure. Catch2's own "Randomness seeded to"
// line is another seed: it only orders the test cases (CTest passes --rng-seed 1).
#define COURSE_INPUT_SEED(seed) INFO("inputs drawn from seed " << (seed) << " (Catch2's \"Randomness seeded to\" only orders the test cases)")
