// The course framework: EpochLog, the per-epoch report every trainer uses.
#include "framework/epoch_log.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "../common/test_files.hpp"  // TempDir
#include "course_test.hpp"

namespace {
std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

TEST_CASE("EpochLog writes a CSV row per epoch as it ends and keeps the numbers", "[epoch_log]") {
  const course::test::TempDir dir;
  const std::string path = dir.file("metrics.csv");
  {
    framework::EpochLog log(path, 3);
    CHECK_FALSE(std::filesystem::exists(path));  // no header-only file for a run that stops before an epoch
    log.add({0.25, 0.9, 0.125, 0.95, 1.5});
    // The row is on disk before the next epoch: an interrupted run keeps it.
    REQUIRE(lines_of(path).size() == 2);
    CHECK(lines_of(path)[0] == "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds");
    CHECK(lines_of(path)[1] == "1,0.250000,0.900000,0.125000,0.950000,1.5000");
    log.add({0.0625, 0.99, 0.03125, 0.985, 0.75});
    CHECK(lines_of(path)[2] == "2,0.062500,0.990000,0.031250,0.985000,0.7500");
    const framework::TrainSummary& s = log.summary();
    CHECK(s.epoch_seconds == std::vector<double>{1.5, 0.75});
    CHECK(s.train_loss == std::vector<double>{0.25, 0.0625});
    CHECK(s.train_accuracy == std::vector<double>{0.9, 0.99});
    CHECK(s.test_loss == std::vector<double>{0.125, 0.03125});
    CHECK(s.test_accuracy == std::vector<double>{0.95, 0.985});
  }
  {
    framework::EpochLog quiet("", 1);  // no file, the numbers still kept
    quiet.add({1, 0.5, 2, 0.25, 3});
    CHECK(quiet.summary().test_accuracy == std::vector<double>{0.25});
  }
  CHECK_THROWS_AS(framework::EpochLog(path + "/not_a_folder/metrics.csv", 1), course::Error);
}

TEST_CASE("EpochLog names another task's score in metrics.csv's header", "[epoch_log]") {
  const course::test::TempDir dir;
  const std::string path = dir.file("metrics.csv");
  framework::EpochLog log(path, 1, framework::ScoreName{"IoU>=.5", "iou50", "share of boxes found"});
  log.add({0.5, 0.25, 0.75, 0.125, 2});
  REQUIRE(lines_of(path).size() == 2);
  CHECK(lines_of(path)[0] == "epoch,train_loss,train_iou50,test_loss,test_iou50,seconds");
  CHECK(lines_of(path)[1] == "1,0.500000,0.250000,0.750000,0.125000,2.0000");
}

TEST_CASE("EpochLog without a score: a regression's losses to float's last digit", "[epoch_log]") {
  const course::test::TempDir dir;
  const std::string path = dir.file("metrics.csv");
  {
    framework::EpochLog log(path, 2, framework::no_score());
    log.add({0.52768019247055054, 0, 0.40452709794044495, 0, 0.0103});
    REQUIRE(lines_of(path).size() == 2);
    CHECK(lines_of(path)[0] == "epoch,train_loss,test_loss,seconds");
    CHECK(lines_of(path)[1] == "1,0.527680192,0.404527098,0.010300");
  }
}

TEST_CASE("EpochLog keeps every row of a long run of short epochs, the last ones once the log goes", "[epoch_log]") {
  const course::test::TempDir dir;
  const std::string path = dir.file("metrics.csv");
  const int rows = 400;  // past 4 KiB: from there the file is rewritten at most once a second
  {
    framework::EpochLog log(path, 1000, framework::no_score());  // a run stopped after 400 of 1000 epochs
    for (int e = 1; e <= rows; ++e) log.add({1.0 / e, 0, 2.0 / e, 0, 0.001});
    CHECK(lines_of(path).size() >= 100);  // the small file's rows were written as they came
  }
  const std::vector<std::string> lines = lines_of(path);
  REQUIRE(lines.size() == size_t(rows) + 1);
  CHECK(lines.back() == "400,0.0025,0.005,0.001000");
}
