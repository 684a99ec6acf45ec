// The real trainer on the first 1000 MNIST training images (SKIPPED without MNIST):
// two short epochs must lower the loss, reach a sensible accuracy and write every output.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "course_test.hpp"
#include "host_training.hpp"

using namespace host_training;

TEST_CASE("the CPU trainer with lesson 02's kit on 1000 MNIST images: loss falls, files written", "[mnist]") {
  // One folder per process: two builds' tests may run at the same time.
  const std::string out =
      (std::filesystem::temp_directory_path() / ("course_test_02_mnist_" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(out);
  TrainConfig config;
  config.out_dir = out;
  config.epochs = 2;
  config.train_limit = 1000;
  config.test_limit = 500;
  const TrainSummary s = framework::train_on_host(config, load_training_data(config), host_kit());
  REQUIRE(s.train_loss.size() == 2);
  REQUIRE(s.test_accuracy.size() == 2);
  CHECK(s.train_loss[1] < s.train_loss[0]);
  CHECK(s.train_loss[0] < 2.0);      // chance is log 10 = 2.30
  CHECK(s.test_accuracy[1] > 0.75);  // chance is 0.10; ~0.85 is typical after 2000 examples
  for (const char* f : {"metrics.csv", "filters.png", "misclassified.png", "confusion.png"}) {
    INFO(f);
    CHECK(std::filesystem::file_size(out + "/" + f) > 100);
  }
  std::ifstream csv(out + "/metrics.csv");
  std::string header, row;
  std::getline(csv, header);
  CHECK(header == "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds");
  int rows = 0;
  while (std::getline(csv, row)) ++rows;
  CHECK(rows == 2);
  std::filesystem::remove_all(out);
}
