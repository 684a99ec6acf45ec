#pragma once
// The course framework: watches the training loss as a trainer reports it, for every trainer.
// A NaN or Inf loss stops training (course::Error with the step); a loss that grows to more than
// 100x where it started gets ONE warning line with the step, since that almost always means the
// learning rate is too large (training would go on diverging).
//
// Where it started: the lower of the first loss reported and ln(classes), the cross-entropy of a
// uniform guess, which a fresh network is close to. The GPU trainer reports running means every
// few dozen steps, so its first report may already hold the divergence.
#include <cstdio>

namespace framework {

class LossWatch {
 public:
  // lr: printed in the warning. out: where the warning goes (stdout; a test may pass a file).
  LossWatch(double lr, int classes, std::FILE* out = stdout);
  // step counts from 1 over the whole run; loss is the mean loss the trainer reports there.
  void at_step(long step, double loss);
  bool warned() const { return warned_; }

  static constexpr double kGrowthLimit = 100.0;  // two orders of magnitude

 private:
  double lr_;
  std::FILE* out_;
  double start_loss_;  // ln(classes) until a lower first loss is seen
  long start_step_ = 0;
  bool seen_first_ = false;
  bool warned_ = false;
};

}  // namespace framework
