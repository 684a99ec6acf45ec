#pragma once
// Checking a result before it is timed or trusted: how far a float sum may be from its double
// reference, seeded random inputs, and validate(), which throws the same one-line message a
// failing test prints (compare.hpp's CompareResult::message). NaN and Inf always fail.
// The pattern every lesson program follows: validate first, then time (timer.hpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "course/compare.hpp"

namespace course {

// ---- tolerances ----------------------------------------------------------------------------
// Tolerance for a float result that sums `terms` terms of size <= `max_term`, compared with the
// same sum in double. With random signs the partial sums grow like sqrt(terms) * max_term; each
// addition rounds by FLT_EPSILON * |partial sum| at most, and those errors add like a random
// walk: about FLT_EPSILON * terms * max_term in all. A factor 8 covers the tail, and stays far
// below the error of a wrong index or a lost addition (about the size of one whole term).
double float_sum_atol(double terms, double max_term = 1.0);
// The same as a Tolerance (no relative part: with terms of size <= max_term, the absolute bound
// already covers large results).
Tolerance float_sum_tolerance(double terms, double max_term = 1.0);
// The same bound for two double computations of one sum that add in different orders.
double double_sum_atol(double terms, double max_term = 1.0);
// For results that may be larger than one term (a GEMM, a softmax row): half of float_sum_atol
// as the absolute and half as the relative part, so an element may be off by
// float_sum_atol / 2 * (1 + |ref|): the whole bound at |ref| = 1, more for larger results.
Tolerance float_sum_atol_rtol(double terms, double max_term = 1.0);

// ---- finite differences -------------------------------------------------------------------
// The central difference (f() with x[i] + eps, minus f() with x[i] - eps) / 2 eps, in double:
// the numerical derivative of a scalar function f of the vector x (which f reads) at x[i]. x[i] is
// restored afterwards. Its error is O(eps^2) from the function's curvature plus about
// |f| * DBL_EPSILON / eps from rounding: eps near 1e-6 balances the two for smooth functions.
template <typename F>
double central_difference(F&& f, std::vector<double>& x, size_t i, double eps) {
  const double saved = x[i];
  x[i] = saved + eps;
  const double up = f();
  x[i] = saved - eps;
  const double down = f();
  x[i] = saved;
  return (up - down) / (2 * eps);
}

// ---- seeded inputs -------------------------------------------------------------------------
// n values uniform in [lo, hi) from stream `stream` of `seed` (course::Rng): random signs, never
// all equal, the same on every machine. Stream 0 gives course::random_uniform(n, seed, lo, hi).
std::vector<float> random_floats(size_t n, uint64_t seed, uint64_t stream = 0, float lo = -1.0f, float hi = 1.0f);
// The same float values as double, for references computed in double.
std::vector<double> random_doubles(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
std::vector<double> to_double(const std::vector<float>& v);

// ---- validation ----------------------------------------------------------------------------
// Throws course::Error unless got and ref have the same size and every element is within
// tolerance.atol + tolerance.rtol * |ref| and finite. The message names `what` and the worst
// element at its index in `shape`, e.g. "dx: 1 of 6 elements outside ...; worst at dx[b=1, i=0]".
void validate(const std::string& what, const std::vector<float>& got, const std::vector<float>& ref,
              Tolerance tolerance, const Shape& shape = {});
void validate(const std::string& what, const std::vector<float>& got, const std::vector<double>& ref,
              Tolerance tolerance, const Shape& shape = {});
void validate(const std::string& what, const std::vector<double>& got, const std::vector<double>& ref,
              Tolerance tolerance, const Shape& shape = {});

}  // namespace course
