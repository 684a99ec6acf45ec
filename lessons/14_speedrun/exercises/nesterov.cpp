// Lesson 14, step 14.4: SGD with Nesterov momentum on the CPU, one step over n parameters. YOUR FILE.
// The formulas are in speedrun.hpp. Uncomment the parameter names when you write it.
#include "course/error.hpp"
#include "speedrun.hpp"

namespace speedrun {

void nesterov_step(float* /*w*/, const float* /*grad*/, float* /*velocity*/, size_t /*n*/, float /*lr*/,
                   float /*momentum*/, float /*weight_decay*/) {
  // TODO(14.4): check_nesterov("nesterov_step", lr, momentum, weight_decay) before anything else;
  // then for every i < n, in float, in place: g from the gradient and weight decay, the new
  // velocity[i], and w[i] moved by lr * (g + momentum * velocity) with the velocity just written.
  // grad is only read.
  course::todo("14.4", "nesterov_step (PyTorch's SGD with nesterov=True, in place)");
}

}  // namespace speedrun
