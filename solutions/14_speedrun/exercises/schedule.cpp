// Lesson 14, step 14.1: the one-cycle learning-rate schedule.
#include "speedrun.hpp"

namespace speedrun {

float one_cycle_lr(int step, int total_steps, int warmup_steps, float peak_lr) {
  check_one_cycle("one_cycle_lr", step, total_steps, warmup_steps, peak_lr);
  const double peak = peak_lr;
  // The warm-up counts step + 1, so its first step already learns and its last reaches the peak.
  if (step < warmup_steps) return float(peak * (step + 1) / warmup_steps);
  // The decay starts at the peak and stops one step short of 0: the last step still learns.
  return float(peak * (total_steps - step) / (total_steps - warmup_steps));
}

}  // namespace speedrun
