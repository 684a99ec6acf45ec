// Lesson 12, step 12.3: Adadelta on the CPU, one step over n parameters. YOUR FILE.
// The formulas are in beyond_mnist.hpp. Uncomment the parameter names when you write it.
#include <cmath>

#include "beyond_mnist.hpp"
#include "course/error.hpp"

namespace beyond_mnist {

void adadelta_step(float* /*w*/, const float* /*grad*/, float* /*square_avg*/, float* /*delta_avg*/, size_t /*n*/,
                   float /*lr*/, float /*rho*/, float /*eps*/, float /*weight_decay*/) {
  // TODO(12.3): check_adadelta("adadelta_step", lr, rho, eps) before anything else; then update
  // w[i], square_avg[i] and delta_avg[i] in place for every i < n, in float, in the order of the
  // formulas: delta needs the NEW square_avg and the OLD delta_avg. grad is only read.
  course::todo("12.3", "adadelta_step (PyTorch's Adadelta, in place)");
}

}  // namespace beyond_mnist
