// The course framework: the optimizers' names, and each trainer's default learning rate by optimizer.
#include <string>

#include "course/error.hpp"
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
