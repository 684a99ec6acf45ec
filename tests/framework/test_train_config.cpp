// The course framework: the optimizers' names, and each trainer's default learning rate by optimizer.
#include <string>
#include <utility>
#include <vector>

#include "course/error.hpp"
#include "course/number_text.hpp"
#include "course_test.hpp"
#include "framework/train_config.hpp"
#include "../../framework/src/device_run.hpp"  // network_batch (the framework's own header)

using framework::OptimizerKind;

TEST_CASE("optimizer_kind reads the names optimizer_name writes, and refuses others", "[train_config]") {
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam, OptimizerKind::adadelta, OptimizerKind::nesterov})
    REQUIRE(framework::optimizer_kind(framework::optimizer_name(kind)) == kind);
  REQUIRE(std::string(framework::optimizer_name(OptimizerKind::nesterov)) == "nesterov");
  for (const char* bad : {"", "SGD", "rmsprop", "adam ", "momentum"}) {
    CAPTURE(bad);
    REQUIRE_THROWS_WITH(framework::optimizer_kind(bad),
                        "unknown optimizer '" + std::string(bad) + "' (expected sgd, adam, adadelta or nesterov)");
  }
}

TEST_CASE("TrainConfig: the learning rate is the optimizer's default unless one is given", "[train_config]") {
  framework::TrainConfig c;
  REQUIRE(c.optimizer == OptimizerKind::sgd);
  REQUIRE(c.learning_rate() == c.default_sgd_lr);
  c.optimizer = OptimizerKind::adam;
  REQUIRE(c.learning_rate() == c.default_adam_lr);
  c.optimizer = OptimizerKind::adadelta;
  REQUIRE(c.learning_rate() == c.default_adadelta_lr);
  c.lr = 0.125f;
  REQUIRE(c.learning_rate() == 0.125f);
}

TEST_CASE("parse_lr_drops reads increasing epochs in [2, epochs] and refuses anything else in one line",
          "[train_config]") {
  REQUIRE(framework::parse_lr_drops("", 10).empty());
  REQUIRE(framework::parse_lr_drops("6,9", 10) == std::vector<int>{6, 9});
  REQUIRE(framework::parse_lr_drops("2", 2) == std::vector<int>{2});
  REQUIRE(framework::parse_lr_drops("3,4,10", 10) == std::vector<int>{3, 4, 10});
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"1", "epoch 1 is outside [2, 10]"},       {"11", "epoch 11 is outside [2, 10]"},
      {"6,6", "the epochs must increase"},       {"9,6", "the epochs must increase"},
      {"6,", "'' is not an epoch"},              {",6", "'' is not an epoch"},
      {"6;9", "'6;9' is not an epoch"},          {"-3", "'-3' is not an epoch"},
      {"6, 9", "' 9' is not an epoch"},          {"99999999999", "is not an epoch"},
      {"0x6", "'0x6' is not an epoch"},          {"6.5", "'6.5' is not an epoch"}};
  for (const auto& [text, why] : bad) {
    CAPTURE(text);
    try {
      framework::parse_lr_drops(text, 10);
      FAIL("no error");
    } catch (const course::Error& e) {
      const std::string message = e.what();
      CHECK(message.find("--lr-drops '" + text + "': ") == 0);
      CHECK(message.find(why) != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("learning_rate_in: a tenth of the rate before from each drop's epoch on", "[train_config]") {
  framework::TrainConfig c;
  c.lr = 0.05f;
  c.lr_drops = {3, 5};
  // Epochs counted from 0 here: drops at epochs 3 and 5 counted from 1 start at indices 2 and 4.
  const float expected[] = {0.05f, 0.05f, 0.005f, 0.005f, 0.0005f, 0.0005f};
  for (int epoch = 0; epoch < 6; ++epoch) {
    CAPTURE(epoch);
    CHECK(c.learning_rate_in(epoch) == Approx(expected[epoch]).epsilon(1e-6));
  }
  // Each rate the float nearest its decimal (the epoch line prints it): 0.005, not 0.0050000004.
  CHECK(course::shortest_text(c.learning_rate_in(2)) == "0.005");
  CHECK(course::shortest_text(c.learning_rate_in(4)) == "0.0005");
  // The drops so far, and the rate after them (one set of graphs a rate).
  const int drops[] = {0, 0, 1, 1, 2, 2};
  for (int epoch = 0; epoch < 6; ++epoch) {
    CAPTURE(epoch);
    CHECK(c.lr_drops_by(epoch) == drops[epoch]);
    CHECK(c.learning_rate_after(drops[epoch]) == c.learning_rate_in(epoch));
  }
  c.lr_drops.clear();
  CHECK(c.learning_rate_in(7) == 0.05f);
  CHECK(c.lr_drops_by(7) == 0);
}

TEST_CASE("network_batch: the lead's network holds the evaluation's batch, halved until it fits the GPU",
          "[train_config]") {
  using framework::detail::network_batch;
  const auto always = [](int) { return true; };
  CHECK(network_batch(128, 0, 1, always) == framework::kEvalBatch);  // the test set in chunks of 1000
  CHECK(network_batch(128, 1, 2, always) == 64);                      // another rank: its share only
  CHECK(network_batch(4096, 0, 2, always) == 2048);                   // a share past 1000 is the batch
  CHECK(network_batch(128, 0, 1, [](int b) { return b <= 300; }) == 250);  // 1000, 500 do not fit
  // Even the share does not fit: the share, for require_memory to refuse with the batch's size.
  CHECK(network_batch(128, 0, 1, [](int b) { return b <= 100; }) == 128);
}
