// Lesson 02 (given code): see epoch_log.hpp.
#include "epoch_log.hpp"

#include <cstdio>
#include <fstream>

#include "course/error.hpp"

namespace host_training {

EpochLog::EpochLog(std::string csv_path, int epochs) : path_(std::move(csv_path)), epochs_(epochs) {
  if (path_.empty()) return;
  std::ofstream out(path_);
  if (!out) throw course::Error(path_ + ": cannot be opened for writing");
  out << "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds\n";
}

void EpochLog::add(const EpochResult& r) {
  const int epoch = static_cast<int>(summary_.epoch_seconds.size()) + 1;
  std::printf("epoch %d/%d  train loss %.4f  train acc %.2f %%  test loss %.4f  test acc %.2f %%  %.3f s\n", epoch,
              epochs_, r.train_loss, 100 * r.train_accuracy, r.test_loss, 100 * r.test_accuracy, r.seconds);
  std::fflush(stdout);
  summary_.epoch_seconds.push_back(r.seconds);
  summary_.train_loss.push_back(r.train_loss);
  summary_.train_accuracy.push_back(r.train_accuracy);
  summary_.test_loss.push_back(r.test_loss);
  summary_.test_accuracy.push_back(r.test_accuracy);
  if (path_.empty()) return;
  std::ofstream out(path_, std::ios::app);
  char row[160];
  std::snprintf(row, sizeof row, "%d,%.6f,%.6f,%.6f,%.6f,%.4f\n", epoch, r.train_loss, r.train_accuracy, r.test_loss,
                r.test_accuracy, r.seconds);
  out << row;
  if (!out) throw course::Error(path_ + ": write failed");
}

}  // namespace host_training
