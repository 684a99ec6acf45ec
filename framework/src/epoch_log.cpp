// The course framework: see framework/epoch_log.hpp.
#include "framework/epoch_log.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"

namespace framework {

// The CSV is rewritten whole, through course::write_file_atomically, at the start and after every
// epoch: the rename is then the only step that changes metrics.csv, so an interrupted run or a full
// disk leaves the last complete version (never a cut row), and a failed write throws naming the
// file. A few hundred bytes per epoch make rewriting cheaper to reason about than appending.
EpochLog::EpochLog(std::string csv_path, int epochs, ScoreName score)
    : path_(std::move(csv_path)), epochs_(epochs), score_(std::move(score)) {
  if (path_.empty()) return;
  // Checked now, written with the first epoch: a run that stops before it (a TODO, Ctrl-C) leaves
  // no metrics.csv without a row.
  course::check_output_path(path_);
  const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    throw course::Error(course::shown(path_) + ": cannot be written: the folder " + course::shown(folder.string()) +
                        " does not exist");
  csv_ = score_.column.empty() ? "epoch,train_loss,test_loss,seconds\n"
                               : "epoch,train_loss,train_" + score_.column + ",test_loss,test_" + score_.column +
                                     ",seconds\n";
}

void EpochLog::add(const EpochResult& r) {
  const int epoch = static_cast<int>(summary_.epoch_seconds.size()) + 1;
  const char* brief = score_.brief.c_str();
  const bool scored = !score_.column.empty();
  if (epoch == 1 || epoch == epochs_ || epoch % std::max(1, epochs_ / 20) == 0 || since_printed_.seconds() >= 5) {
    if (scored)
      std::printf("epoch %d/%d  train loss %.4f  train %s %.2f %%  test loss %.4f  test %s %.2f %%  %.3f s\n", epoch,
                  epochs_, r.train_loss, brief, 100 * r.train_accuracy, r.test_loss, brief, 100 * r.test_accuracy,
                  r.seconds);
    else
      std::printf("epoch %d/%d  train loss %.6f  test loss %.6f  %.3f s\n", epoch, epochs_, r.train_loss, r.test_loss,
                  r.seconds);
    std::fflush(stdout);
    since_printed_.reset();
  }
  summary_.epoch_seconds.push_back(r.seconds);
  summary_.train_loss.push_back(r.train_loss);
  summary_.train_accuracy.push_back(r.train_accuracy);
  summary_.test_loss.push_back(r.test_loss);
  summary_.test_accuracy.push_back(r.test_accuracy);
  if (path_.empty()) return;
  char row[160];
  if (scored)
    std::snprintf(row, sizeof row, "%d,%.6f,%.6f,%.6f,%.6f,%.4f\n", epoch, r.train_loss, r.train_accuracy, r.test_loss,
                  r.test_accuracy, r.seconds);
  else
    std::snprintf(row, sizeof row, "%d,%.9g,%.9g,%.6f\n", epoch, r.train_loss, r.test_loss, r.seconds);
  csv_ += row;
  unwritten_ = true;
  if (epoch == epochs_ || csv_.size() <= 4096 || since_written_.seconds() >= 1) write();
}

void EpochLog::write() {
  course::write_file_atomically(path_, csv_);
  unwritten_ = false;
  since_written_.reset();
}

EpochLog::~EpochLog() {
  if (!unwritten_ || path_.empty()) return;
  try {
    write();
  } catch (const std::exception& e) {  // a run already stopping: say so, do not throw again
    std::fprintf(stderr, "warning: %s\n", e.what());
  }
}

void print_summary(const TrainSummary& s, const std::string& where, const ScoreName& score) {
  if (s.epoch_seconds.empty()) return;
  const std::vector<double>& acc = s.test_accuracy;
  const size_t best = size_t(std::max_element(acc.begin(), acc.end()) - acc.begin());
  double total = 0;
  for (double t : s.epoch_seconds) total += t;
  std::printf("summary (%s): %zu epoch(s), final %s %.2f %%, best %.2f %% (epoch %zu), "
              "training time %.3f s (median epoch %.3f s)\n",
              where.c_str(), s.epoch_seconds.size(), score.full.c_str(), 100 * acc.back(), 100 * acc[best], best + 1, total,
              course::median(s.epoch_seconds));
}

}  // namespace framework
