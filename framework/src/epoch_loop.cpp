// The course framework: the epoch loop (epoch_loop.hpp).
#include "framework/epoch_loop.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "course/arithmetic.hpp"
#include "course/error.hpp"
#include "course/progress.hpp"
#include "course/timer.hpp"

namespace framework {

std::vector<std::pair<int, int>> report_stretches(int steps_per_epoch) {
  std::vector<std::pair<int, int>> stretches;
  for (int s = 0; s < steps_per_epoch; s += kReportEvery)
    stretches.push_back({s, std::min(s + kReportEvery, steps_per_epoch)});
  return stretches;
}

namespace {

std::string loss_status(double loss) {
  char text[64];
  std::snprintf(text, sizeof text, "loss %.4f", loss);
  return text;
}

// The loop's clock: the one it was handed, else the host's once everything has finished.
class LoopClock {
 public:
  explicit LoopClock(const EpochLoop& loop) : loop_(loop) {}
  void start() {
    loop_.wait();
    if (loop_.clock_start) loop_.clock_start();
    host_.reset();
  }
  double stop() {
    if (loop_.clock_stop) return loop_.clock_stop();
    loop_.wait();
    return host_.seconds();
  }

 private:
  const EpochLoop& loop_;
  course::HostTimer host_;
};

// Timing::whole_run: every epoch prepared, then all of them on one clock, then one row.
TrainSummary run_whole(const EpochLoop& loop, LossWatch* watch, EpochLog* log, int steps_per_epoch) {
  for (int epoch = 0; epoch < loop.epochs; ++epoch) loop.start_epoch(epoch);
  LoopClock clock(loop);
  clock.start();
  for (int epoch = 0; epoch < loop.epochs; ++epoch) loop.run_stretch(epoch, 0, 0, steps_per_epoch);
  const double seconds = clock.stop();
  const EpochCounts c = loop.counts(0);
  const double seen = double(loop.examples) * loop.epochs;
  if (watch) watch->at_step(steps_per_epoch * loop.epochs, c.loss_sum / seen);
  const TestScore test = loop.evaluate();
  const EpochResult row{c.loss_sum / seen, double(c.correct) / seen, test.loss, test.accuracy, seconds};
  if (log) {
    log->add(row);
    return log->summary();
  }
  return TrainSummary{{row.seconds}, {row.train_loss}, {row.train_accuracy}, {row.test_loss}, {row.test_accuracy}};
}

}  // namespace

TrainSummary run_epochs(const EpochLoop& loop, LossWatch* watch, EpochLog* log, std::FILE* out) {
  if (!loop.start_epoch || !loop.run_stretch || !loop.wait || !loop.counts || !loop.evaluate)
    throw course::Error("run_epochs: every hook of the epoch loop must be set");
  if (bool(loop.clock_start) != bool(loop.clock_stop))
    throw course::Error("run_epochs: a clock needs both its start and its stop");
  if (loop.examples < 1 || loop.batch < 1 || loop.epochs < 1)
    throw course::Error("run_epochs: examples, batch and epochs must be >= 1");
  const bool lead = log != nullptr;
  const int n = loop.examples, batch = std::min(loop.batch, loop.examples);
  const int steps_per_epoch = course::ceil_div(n, batch);
  if (loop.timing == Timing::whole_run) return run_whole(loop, watch, log, steps_per_epoch);
  const std::vector<std::pair<int, int>> stretches = report_stretches(steps_per_epoch);

  for (int epoch = 0; epoch < loop.epochs; ++epoch) {
    loop.start_epoch(epoch);
    const int steps_before = epoch * steps_per_epoch;
    std::unique_ptr<course::ProgressBar> bar;
    if (lead && loop.progress_bar)
      bar = std::make_unique<course::ProgressBar>(
          "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(loop.epochs), n, "img", out);
    LoopClock clock(loop);
    clock.start();  // the clock times the training steps alone, as the PyTorch scripts do
    for (size_t k = 0; k < stretches.size(); ++k) {
      const auto [first, last] = stretches[k];
      loop.run_stretch(epoch, k, first, last);
      if (last == steps_per_epoch) continue;  // the epoch's end is reported below
      const EpochCounts c = loop.counts(steps_before);
      const int seen = std::min(n, last * batch);
      if (watch) watch->at_step(steps_before + last, c.loss_sum / seen);
      if (bar) bar->update(seen, loss_status(c.loss_sum / seen));
    }
    const double seconds = clock.stop();
    const EpochCounts c = loop.counts(steps_before);
    const double train_loss = c.loss_sum / n, train_accuracy = double(c.correct) / n;
    if (watch) watch->at_step(steps_before + steps_per_epoch, train_loss);
    if (bar) bar->finish(loss_status(train_loss));
    const TestScore test = loop.evaluate();
    if (log) log->add({train_loss, train_accuracy, test.loss, test.accuracy, seconds});
  }
  return log ? log->summary() : TrainSummary{};
}

}  // namespace framework
