#pragma once
// Lesson 02 (given code): watches the training loss as a trainer reports it, for both trainers.
// A NaN or Inf loss stops training (course::Error with the step); a loss that grows by more than
// two orders of magnitude over the first one reported gets ONE warning line with the step, since
// that almost always means the learning rate is too large (training would go on diverging).
#include <cstdio>

namespace host_training {

class LossWatch {
 public:
  // lr: printed in the warning. out: where the warning goes (stdout; a test may pass a file).
  explicit LossWatch(double lr, std::FILE* out = stdout) : lr_(lr), out_(out) {}
  // step counts from 1 over the whole run; loss is the mean loss the trainer reports there.
  void at_step(long step, double loss);
  bool warned() const { return warned_; }

  static constexpr double kGrowthLimit = 100.0;  // two orders of magnitude

 private:
  double lr_;
  std::FILE* out_;
  double first_loss_ = -1;
  long first_step_ = 0;
  bool warned_ = false;
};

}  // namespace host_training
