#include "gradient_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "course/check.hpp"
#include "course/rng.hpp"

namespace lesson01 {

GradientCheckRow check_gradient(const ParamTensor& p, const std::function<double()>& loss, size_t max_checks,
                                uint64_t seed) {
  GradientCheckRow row;
  row.name = p.name;
  for (int d : p.shape) row.shape += (row.shape.empty() ? "[" : ",") + std::to_string(d);
  row.shape += "]";
  row.total = p.value->size();

  std::vector<int> indices(row.total);
  for (size_t i = 0; i < row.total; ++i) indices[i] = static_cast<int>(i);
  if (row.total > max_checks) {
    course::Rng rng(seed);
    rng.shuffle(indices);
    indices.resize(max_checks);
    std::sort(indices.begin(), indices.end());
  }
  row.checked = indices.size();

  const std::vector<double> analytic = *p.grad;  // a copy: loss() may run the network again
  std::vector<double>& w = *p.value;
  auto central_difference = [&](size_t i, double eps) { return course::central_difference(loss, w, i, eps); };
  // Written so that a NaN fails.
  auto close = [](double a, double numeric) {
    return std::fabs(a - numeric) <= kCheckAtol + kCheckRtol * std::fabs(numeric);
  };

  for (int index : indices) {
    const size_t i = size_t(index);
    const double a = analytic[i];
    double numeric = central_difference(i, kCheckEps);
    if (!close(a, numeric)) {
      const double again = central_difference(i, kRetryEps);
      if (close(a, again)) {
        numeric = again;
        ++row.retried;
      }
    }
    const double err = std::fabs(a - numeric);
    const double scale = std::max(std::fabs(a), std::fabs(numeric));
    row.max_abs_error = std::max(row.max_abs_error, err);
    if (scale > 0) row.max_rel_error = std::max(row.max_rel_error, err / scale);
    if (!close(a, numeric)) row.pass = false;
  }
  return row;
}

void print_gradient_table(const std::vector<GradientCheckRow>& rows) {
  std::printf("gradient check: central differences in double, eps = %.0e (%.0e again where a kink spoils it)\n",
              kCheckEps, kRetryEps);
  std::printf("pass when |analytic - numeric| <= %.0e + %.0e * |numeric| for every checked entry\n\n", kCheckAtol,
              kCheckRtol);
  std::printf("%-13s %-10s %10s %7s %13s %13s  %s\n", "tensor", "shape", "checked", "kinks", "max abs err",
              "max rel err", "result");
  for (const auto& r : rows) {
    const std::string checked = std::to_string(r.checked) + "/" + std::to_string(r.total);
    std::printf("%-13s %-10s %10s %7zu %13.2e %13.2e  %s\n", r.name.c_str(), r.shape.c_str(), checked.c_str(),
                r.retried, r.max_abs_error, r.max_rel_error, r.pass ? "pass" : "FAIL");
  }
}

}  // namespace lesson01
