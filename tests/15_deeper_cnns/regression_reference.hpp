#pragma once
// Lesson 15's tests: a regression head's losses written out in double (15.4's references).
#include <cmath>
#include <vector>

#include "deeper_cnns.hpp"

namespace regression_test {

using deeper_cnns::RegressionLoss;

// One value's cost for d = p - t.
inline double cost(RegressionLoss kind, double d, double beta) {
  if (kind == RegressionLoss::squared) return d * d;
  return std::fabs(d) < beta ? d * d / (2 * beta) : std::fabs(d) - beta / 2;
}

struct Want {
  double loss = 0;
  std::vector<double> row_loss;
};
// The mean cost over every value, and each row's share of it.
inline Want reference(RegressionLoss kind, const std::vector<double>& p, const std::vector<double>& t, int batch,
                      int outputs, double beta) {
  Want w;
  const double count = double(batch) * outputs;
  for (int b = 0; b < batch; ++b) {
    double row = 0;
    for (int o = 0; o < outputs; ++o) row += cost(kind, p[size_t(b) * outputs + o] - t[size_t(b) * outputs + o], beta);
    w.row_loss.push_back(row / count);
    w.loss += row / count;
  }
  return w;
}

}  // namespace regression_test
