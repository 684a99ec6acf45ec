// Lesson 15, step 15.4: a regression head's losses on the CPU.
#include <cmath>

#include "deeper_cnns.hpp"

namespace deeper_cnns {

template <typename T>
T regression_loss(RegressionLoss kind, const T* pred, const T* target, int batch, int outputs, T beta, T* row_loss,
                  T* dpred) {
  check_regression("regression_loss", kind, batch, outputs, double(beta));
  const T count = T(batch) * T(outputs);  // the loss is a mean over every value
  T loss = 0;
  for (int b = 0; b < batch; ++b) {
    T row = 0;
    for (int o = 0; o < outputs; ++o) {
      const size_t i = size_t(b) * outputs + o;
      const T d = pred[i] - target[i];
      T cost, slope;  // the value's cost and its derivative in d
      if (kind == RegressionLoss::squared) {
        cost = d * d, slope = 2 * d;
      } else if (std::fabs(d) < beta) {
        cost = d * d / (2 * beta), slope = d / beta;
      } else {
        cost = std::fabs(d) - beta / 2, slope = d > 0 ? T(1) : T(-1);
      }
      row += cost;
      dpred[i] = slope / count;
    }
    row_loss[b] = row / count;
    loss += row_loss[b];
  }
  return loss;
}

template float regression_loss<float>(RegressionLoss, const float*, const float*, int, int, float, float*, float*);
template double regression_loss<double>(RegressionLoss, const double*, const double*, int, int, double, double*,
                                        double*);

}  // namespace deeper_cnns
