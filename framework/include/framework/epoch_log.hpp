#pragma once
// The course framework: how a trainer reports an epoch, shared by every trainer so that they
// print and write the same things: one line on stdout, one row of metrics.csv, and the
// numbers kept for the summary.
#include <string>

#include "course/timer.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"

namespace framework {

// What a run scores besides its loss: the share of right answers. For a classifier that is its
// accuracy; another task names its own share (a box regression: boxes that overlap enough).
// A task scored by its loss alone (a regression: a sine wave one value ahead) has none: an empty
// column (no_score()).
struct ScoreName {
  std::string brief = "acc";           // the epoch line: "train acc 97.12 %"
  std::string column = "accuracy";     // metrics.csv: train_<column>, test_<column>
  std::string full = "test accuracy";  // the summary: "final test accuracy 97.12 %"
};
inline ScoreName no_score() { return {"", "", ""}; }

struct EpochResult {
  double train_loss = 0, train_accuracy = 0, test_loss = 0, test_accuracy = 0;
  double seconds = 0;  // the training part of the epoch only
};

class EpochLog {
 public:
  // csv_path: metrics.csv (epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds; the
  // score's column in place of "accuracy"; without a score epoch,train_loss,test_loss,seconds, the
  // losses to float's last digit: runs that differ in one bit differ there), written
  // with its header line when the first epoch ends (a run that stops before leaves no file without
  // a row); "" writes no file. The folder must exist and nothing but a regular file may be at the
  // path: else course::Error naming the file and the reason, at once.
  EpochLog(std::string csv_path, int epochs, ScoreName score = {});
  // Prints "epoch E/N  train loss ...  test acc ... %  S s", puts the CSV row on disk, and keeps the
  // numbers for summary(). The file is rewritten whole after every epoch while it is small (4 KiB),
  // then at most once a second and at the last epoch: a run of a million short epochs does not
  // write a growing file a million times. Rows not yet on disk when a run stops early (a NaN loss)
  // are written as the log goes away, so an interrupted run keeps what it measured.
  // A long run prints the first and last epochs, every (epochs / 20)-th and any that ends 5 s or
  // more after the last line: a log never goes quiet for long, nor floods (every row is written).
  // The file under csv_path is always complete (header and whole rows): it is replaced all at once.
  void add(const EpochResult& r);
  const TrainSummary& summary() const { return summary_; }
  ~EpochLog();
  EpochLog(const EpochLog&) = delete;
  EpochLog& operator=(const EpochLog&) = delete;

 private:
  void write();
  std::string path_;
  std::string csv_;  // everything written so far: each epoch rewrites the whole file
  int epochs_;
  ScoreName score_;
  TrainSummary summary_;
  course::HostTimer since_printed_, since_written_;
  bool unwritten_ = false;  // rows in csv_ that the file does not have yet
};

// One line for the end of a run: "summary (<where>): N epoch(s), final test accuracy ..., best
// ... (epoch E), training time ... s (median epoch ... s)" (the score's full name in place of "test
// accuracy"). Prints nothing for an empty summary.
void print_summary(const TrainSummary& s, const std::string& where, const ScoreName& score = {});

}  // namespace framework
