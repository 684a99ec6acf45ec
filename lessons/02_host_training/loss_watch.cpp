#include "loss_watch.hpp"

#include <cmath>

#include "course/error.hpp"

namespace host_training {

void LossWatch::at_step(long step, double loss) {
  if (!std::isfinite(loss)) {
    char text[160];
    std::snprintf(text, sizeof text, "the training loss became %s at step %ld: lower the learning rate (lr %g)",
                  std::isnan(loss) ? "NaN" : "Inf", step, lr_);
    throw course::Error(text);
  }
  if (first_loss_ < 0) {
    first_loss_ = loss, first_step_ = step;
    return;
  }
  if (!warned_ && first_loss_ > 0 && loss > kGrowthLimit * first_loss_) {
    warned_ = true;
    std::fprintf(out_,
                 "\nwarning: the training loss grew from %.4g (step %ld) to %.4g at step %ld, more than %gx: the "
                 "learning rate %g is probably too large\n",
                 first_loss_, first_step_, loss, step, kGrowthLimit, lr_);
    std::fflush(out_);
  }
}

}  // namespace host_training
