#include "framework/loss_watch.hpp"

#include <cmath>

#include "course/error.hpp"

namespace framework {

LossWatch::LossWatch(double lr, int classes, std::FILE* out)
    : lr_(lr), out_(out), start_loss_(std::log(double(classes > 1 ? classes : 2))) {}

void LossWatch::at_step(long step, double loss) {
  if (!std::isfinite(loss)) {
    char text[160];
    std::snprintf(text, sizeof text, "the training loss became %s at step %ld: lower the learning rate (lr %g)",
                  std::isnan(loss) ? "NaN" : "Inf", step, lr_);
    throw course::Error(text);
  }
  if (!seen_first_) {
    seen_first_ = true;
    if (loss < start_loss_) start_loss_ = loss, start_step_ = step;
  }
  if (!warned_ && start_loss_ > 0 && loss > kGrowthLimit * start_loss_) {
    warned_ = true;
    char from[96];
    if (start_step_ > 0)
      std::snprintf(from, sizeof from, "%.4g (step %ld)", start_loss_, start_step_);
    else
      std::snprintf(from, sizeof from, "%.4g (a uniform guess)", start_loss_);
    std::fprintf(out_,
                 "\nwarning: the training loss grew from %s to %.4g at step %ld, more than %gx: the learning "
                 "rate %g is probably too large\n",
                 from, loss, step, kGrowthLimit, lr_);
    std::fflush(out_);
  }
}

}  // namespace framework
