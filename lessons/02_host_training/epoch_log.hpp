#pragma once
// Lesson 02 (given code): how a trainer reports an epoch, shared with lesson 08's GPU trainer so
// the two print and write the same things: one line on stdout, one row of metrics.csv, and the
// numbers kept for the summary.
#include <string>

#include "host_training.hpp"

namespace host_training {

struct EpochResult {
  double train_loss = 0, train_accuracy = 0, test_loss = 0, test_accuracy = 0;
  double seconds = 0;  // the training part of the epoch only
};

class EpochLog {
 public:
  // csv_path: metrics.csv (epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds);
  // "" writes no file. Throws course::Error when the file cannot be written.
  EpochLog(std::string csv_path, int epochs);
  // Prints "epoch E/N  train loss ...  test acc ... %  S s", appends (and flushes) the CSV row, so
  // an interrupted run keeps what it measured, and keeps the numbers for summary().
  void add(const EpochResult& r);
  const TrainSummary& summary() const { return summary_; }

 private:
  std::string path_;
  int epochs_;
  TrainSummary summary_;
};

}  // namespace host_training
