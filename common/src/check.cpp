#include "course/check.hpp"

#include <cfloat>

#include "course/error.hpp"
#include "course/rng.hpp"

namespace course {

double float_sum_atol(double terms, double max_term) { return 8.0 * FLT_EPSILON * terms * max_term; }

Tolerance float_sum_tolerance(double terms, double max_term) { return {float_sum_atol(terms, max_term), 0.0}; }

double double_sum_atol(double terms, double max_term) { return 8.0 * DBL_EPSILON * terms * max_term; }

Tolerance float_sum_atol_rtol(double terms, double max_term) {
  const double half = 0.5 * float_sum_atol(terms, max_term);
  return {half, half};
}

std::vector<float> random_floats(size_t n, uint64_t seed, uint64_t stream, float lo, float hi) {
  std::vector<float> v(n);
  Rng(seed, stream).fill_uniform(v, lo, hi);
  return v;
}

std::vector<double> random_doubles(size_t n, uint64_t seed, float lo, float hi) {
  return to_double(random_uniform(n, seed, lo, hi));
}

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

namespace {
template <typename G, typename R>
void validate_impl(const std::string& what, const std::vector<G>& got, const std::vector<R>& ref,
                   Tolerance tolerance, const Shape& shape) {
  if (got.size() != ref.size())
    throw Error(what + ": " + std::to_string(got.size()) + " elements, expected " + std::to_string(ref.size()));
  const CompareResult r = compare(got.data(), ref.data(), got.size(), tolerance);
  if (!r.ok) throw Error(r.message(what, shape));
}
}  // namespace

void validate(const std::string& what, const std::vector<float>& got, const std::vector<float>& ref,
              Tolerance tolerance, const Shape& shape) {
  validate_impl(what, got, ref, tolerance, shape);
}
void validate(const std::string& what, const std::vector<float>& got, const std::vector<double>& ref,
              Tolerance tolerance, const Shape& shape) {
  validate_impl(what, got, ref, tolerance, shape);
}
void validate(const std::string& what, const std::vector<double>& got, const std::vector<double>& ref,
              Tolerance tolerance, const Shape& shape) {
  validate_impl(what, got, ref, tolerance, shape);
}

}  // namespace course
