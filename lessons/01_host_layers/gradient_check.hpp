#pragma once
// Gradient check: backward's gradient of each parameter tensor against central differences
//   dL/dw ~ (L(w + eps) - L(w - eps)) / (2 eps)
// computed in double, one parameter at a time.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tiny_net.hpp"

namespace lesson01 {

// eps: the rounding error of the loss (~1e-16 * |L|) divided by 2 eps stays near 1e-10, far
// below the threshold. ReLU and max-pool have kinks: when one lies between w - eps and w + eps,
// the difference quotient mixes two slopes and is wrong. Such an entry is measured again with
// eps / 10 (kRetryEps), where the kink is most likely outside the step; a wrong gradient fails both.
constexpr double kCheckEps = 1e-6, kRetryEps = 1e-7;
// Pass: |analytic - numeric| <= kCheckAtol + kCheckRtol * |numeric| for every checked entry.
// Correct code lands near 1e-10; a wrong index or a missing term gives errors of the size of
// the gradient itself (1e-4 to 1e-1 here).
constexpr double kCheckAtol = 1e-7, kCheckRtol = 1e-5;

struct GradientCheckRow {
  std::string name, shape;
  size_t checked = 0, total = 0;
  size_t retried = 0;        // entries that failed with kCheckEps and passed with kRetryEps (kinks)
  double max_abs_error = 0;  // max |analytic - numeric|
  double max_rel_error = 0;  // max |analytic - numeric| / max(|analytic|, |numeric|), where that is > 0
  bool pass = true;
};

// Checks `max_checks` entries of p (all of them when it has fewer; otherwise a seeded random
// choice). loss() must run the forward pass with the current parameter values.
GradientCheckRow check_gradient(const ParamTensor& p, const std::function<double()>& loss, size_t max_checks,
                                uint64_t seed);

void print_gradient_table(const std::vector<GradientCheckRow>& rows);

}  // namespace lesson01
