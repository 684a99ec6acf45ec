#pragma once
// The course framework: the epoch loop every trainer runs, on the GPU or the CPU, and a speedrun too.
//
// The loop decides WHEN: epochs, the stretches of steps between two progress reports, where the
// clock starts and stops, when the loss is watched, the test set evaluated and the epoch logged.
// The trainer decides HOW, through the hooks: how a stretch of steps runs (launched one by one,
// replayed from a CUDA graph, on several ranks), how its counters are read, how it evaluates.
// So one lesson's trainer differs from another's only in what its hooks do.
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include "framework/epoch_log.hpp"
#include "framework/loss_watch.hpp"

namespace framework {

constexpr int kReportEvery = 50;  // steps between progress-bar refreshes (each one waits for the device)

// An epoch's steps cut at the report points: [first, last) stretches of kReportEvery steps (the last
// one shorter). Each is enqueued, or captured once and replayed, as one piece.
std::vector<std::pair<int, int>> report_stretches(int steps_per_epoch);

// The training counters of the epoch so far: the loss summed over the examples seen, right answers.
struct EpochCounts {
  double loss_sum = 0;
  long long correct = 0;
};

// The test set's score after an epoch.
struct TestScore {
  double loss = 0, accuracy = 0;
};

// How the loop times a run and reports on it.
enum class Timing {
  // The trainers': each epoch on a clock of its own, a report point every kReportEvery steps (the
  // progress bar, the loss watch), the test set after each epoch, one log row an epoch.
  each_epoch,
  // A speedrun's: every epoch's preparations (start_epoch) first, before the clock; then every epoch,
  // each one stretch, back to back on ONE clock, with no report point and nothing read back until
  // it stops after the last; then the counters once (a NaN still stops the run), the test set once
  // and one row for the whole run.
  whole_run,
};

struct EpochLoop {
  int examples = 0;  // training examples an epoch
  int batch = 0;     // examples a step (the epoch's last step may have fewer)
  int epochs = 0;
  Timing timing = Timing::each_epoch;
  bool progress_bar = true;  // false: none (an epoch of one step, whose epoch line is its progress)
  // The epoch's preparations, before its clock starts (its order of examples, zeroed counters).
  std::function<void(int epoch)> start_epoch;
  // Runs (or enqueues) stretch k of the epoch, its steps [first, last): report_stretches()'s under
  // each_epoch, the whole epoch (k = 0) under whole_run.
  std::function<void(int epoch, size_t k, int first, int last)> run_stretch;
  // Returns once everything run so far has finished: the host's clock stops after it.
  std::function<void()> wait;
  // Another clock than the host's (both or neither): start() once everything before has finished;
  // stop() right after the last stretch is enqueued, returning the seconds since start() once the
  // stretches have finished (a GPU's clock, as a speedrun times it).
  std::function<void()> clock_start;
  std::function<double()> clock_stop;
  // The epoch's counters so far (under whole_run: the run's, steps_before 0); steps_before is the
  // number of steps of the earlier epochs (the trainer names a NaN's step with it). May wait for the device.
  std::function<EpochCounts(int steps_before)> counts;
  // After the epoch's clock stopped: the test set's score (a rank that does not lead may return
  // anything: only the lead's is logged).
  std::function<TestScore()> evaluate;
};

// Runs loop.epochs epochs as loop.timing says. The lead (log != nullptr) shows a progress bar, feeds
// `watch` (which throws on a NaN loss) at every report point and logs each epoch; other ranks (log == nullptr, as
// lesson 13's) run the same hooks in the same order and print nothing. Returns the log's summary
// (an empty one without a log; under whole_run, the run's one row, log or not). Throws course::Error
// when a hook is missing or a size is < 1.
TrainSummary run_epochs(const EpochLoop& loop, LossWatch* watch, EpochLog* log, std::FILE* out = stdout);

}  // namespace framework
