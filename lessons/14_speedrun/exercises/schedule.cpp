// Lesson 14, step 14.1: the one-cycle learning-rate schedule. YOUR FILE.
// The contract is in speedrun.hpp. Uncomment the parameter names when you write it.
#include "course/error.hpp"
#include "speedrun.hpp"

namespace speedrun {

float one_cycle_lr(int /*step*/, int /*total_steps*/, int /*warmup_steps*/, float /*peak_lr*/) {
  // TODO(14.1): check_one_cycle("one_cycle_lr", step, total_steps, warmup_steps, peak_lr) before
  // anything else; then the rate of `step`, in double, rounded to float once at the end:
  //   step <  warmup_steps:  peak_lr * (step + 1) / warmup_steps
  //   step >= warmup_steps:  peak_lr * (total_steps - step) / (total_steps - warmup_steps)
  // Both lines are fractions of ints: mind integer division.
  course::todo("14.1", "one_cycle_lr (up over the warm-up, then down to peak_lr / (total_steps - warmup_steps))");
}

}  // namespace speedrun
