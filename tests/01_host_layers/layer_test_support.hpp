#pragma once
// Shared by lesson 01's tests: random inputs in double, the finite-difference gradient
// check, and (from course/check.hpp) the tolerance for float results compared with a double reference.
#include <cstdint>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course_test.hpp"

namespace l01 {

using Vec = std::vector<double>;

// n seeded uniform values in [lo, hi), as double.
using course::random_doubles;
inline std::vector<float> to_float(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }
inline Vec nan_doubles(size_t n) { return Vec(n, std::numeric_limits<double>::quiet_NaN()); }

inline double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Central-difference step. Dense and conv are linear in every input, ReLU and max-pool are
// linear between kinks (the tests keep inputs more than 1e-3 from a kink or a tie), so the
// difference quotient has no truncation error there; softmax-CE's is about eps^2/6 * |f'''|,
// ~1e-9. A step this large keeps the rounding error of the loss, ~1e-16 * |L| / eps, near 1e-11.
constexpr double kFdEps = 1e-4;
// Both error sources above are below 1e-8 on these small cases; an indexing mistake gives
// errors of order 0.1 to 1. 1e-6 sits far from both.
constexpr double kFdAtol = 1e-6, kFdRtol = 1e-6;

// Compares `analytic` with central differences of `loss` with respect to every element of
// `param` (which loss() must read by reference). The loss is a scalar in double.
// A failure names the gradient "d" + name, at its index in `shape` when one is given.
template <typename Loss>
void require_gradient_matches(const std::string& name, Vec& param, const Vec& analytic, Loss&& loss,
                              const course::Shape& shape = {}) {
  REQUIRE(analytic.size() == param.size());
  Vec numeric(param.size());
  for (size_t i = 0; i < param.size(); ++i)
    numeric[i] = course::test::numeric_derivative(loss, param, i, kFdEps);
  const course::CompareResult r = course::compare(analytic.data(), numeric.data(), analytic.size(),
                                                  course::Tolerance{kFdAtol, kFdRtol});
  INFO("d" << name << " (your backward) vs central differences of the loss");
  INFO(r.message("d" + name, shape));
  REQUIRE(r.ok);
}

using course::test::bias_shape;
using course::test::input_shape;
using course::test::matrix;
using course::test::output_shape;
using course::test::weight_shape;

// Tolerances of float (and double) sums against a double reference: course/check.hpp says why.
using course::double_sum_atol;
using course::float_sum_atol;

}  // namespace l01
