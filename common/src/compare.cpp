#include "course/compare.hpp"

#include <cmath>
#include <cstdio>

#include "course/error.hpp"

namespace course {

namespace {
template <typename G, typename R>
CompareResult compare_impl(const G* got, const R* ref, size_t n, Tolerance tol) {
  CompareResult r;
  r.count = n;
  r.tolerance = tol;
  double worst_excess = -1e300;
  for (size_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]);
    const double f = static_cast<double>(ref[i]);
    if (!std::isfinite(g) || !std::isfinite(f)) {
      if (r.first_nonfinite < 0) {
        r.first_nonfinite = static_cast<long long>(i);
        r.worst_index = i;
        r.got_at_worst = g;
        r.ref_at_worst = f;
      }
      ++r.failures;
      worst_excess = 1e300;
      continue;
    }
    const double err = std::fabs(g - f);
    const double allowed = tol.atol + tol.rtol * std::fabs(f);
    if (err > r.max_abs_error) r.max_abs_error = err;
    if (f != 0.0 && err / std::fabs(f) > r.max_rel_error) r.max_rel_error = err / std::fabs(f);
    if (err > allowed) ++r.failures;
    if (r.first_nonfinite < 0 && err - allowed > worst_excess) {
      worst_excess = err - allowed;
      r.worst_index = i;
      r.got_at_worst = g;
      r.ref_at_worst = f;
    }
  }
  r.ok = r.failures == 0;
  return r;
}
}  // namespace

std::string CompareResult::message() const {
  char text[512];
  if (first_nonfinite >= 0) {
    std::snprintf(text, sizeof text,
                  "%zu of %zu elements fail; first NaN/Inf at index %lld (got %g, expected %g): "
                  "an output that was never written stays NaN",
                  failures, count, first_nonfinite, got_at_worst, ref_at_worst);
  } else {
    std::snprintf(text, sizeof text,
                  "%zu of %zu elements outside tolerance; max abs error %.3g, max rel error %.3g; "
                  "worst at index %zu: got %.9g, expected %.9g",
                  failures, count, max_abs_error, max_rel_error, worst_index, got_at_worst,
                  ref_at_worst);
  }
  return text;
}

std::string index_in_shape(size_t i, const Shape& shape) {
  size_t total = 1;
  for (const Dim& d : shape) total *= d.size;
  if (shape.empty() || i >= total) return "[" + std::to_string(i) + "]";
  std::vector<size_t> index(shape.size());
  size_t rest = i;
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = rest % shape[k].size;
    rest /= shape[k].size;
  }
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k) text += ", ";
    text += std::string(shape[k].name) + "=" + std::to_string(index[k]);
  }
  return text + "]";
}

std::string CompareResult::message(const std::string& what, const Shape& shape) const {
  char text[640];
  const std::string where = what + index_in_shape(worst_index, shape);
  const std::string flat = shape.empty() ? "" : " (flat index " + std::to_string(worst_index) + ")";
  if (first_nonfinite >= 0) {
    std::snprintf(text, sizeof text,
                  "%s: %zu of %zu elements fail; first NaN/Inf at %s%s: got %g, expected %g "
                  "(an output that was never written stays NaN)",
                  what.c_str(), failures, count, where.c_str(), flat.c_str(), got_at_worst, ref_at_worst);
  } else {
    std::snprintf(text, sizeof text,
                  "%s: %zu of %zu elements outside |got - expected| <= %g + %g |expected|; worst at %s%s: "
                  "got %.9g, expected %.9g; max abs error %.3g, max rel error %.3g",
                  what.c_str(), failures, count, tolerance.atol, tolerance.rtol, where.c_str(), flat.c_str(),
                  got_at_worst, ref_at_worst, max_abs_error, max_rel_error);
  }
  return text;
}

CompareResult compare(const float* got, const float* ref, size_t n, Tolerance tol) {
  return compare_impl(got, ref, n, tol);
}
CompareResult compare(const float* got, const double* ref, size_t n, Tolerance tol) {
  return compare_impl(got, ref, n, tol);
}
CompareResult compare(const double* got, const double* ref, size_t n, Tolerance tol) {
  return compare_impl(got, ref, n, tol);
}
CompareResult compare(const std::vector<float>& got, const std::vector<float>& ref, Tolerance tol) {
  if (got.size() != ref.size())
    throw Error("compare: result has " + std::to_string(got.size()) + " elements, reference " +
                std::to_string(ref.size()));
  return compare_impl(got.data(), ref.data(), got.size(), tol);
}

long long first_nonfinite(const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return static_cast<long long>(i);
  return -1;
}

}  // namespace course
