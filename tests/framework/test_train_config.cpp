// The course framework: the optimizers' names, and each trainer's default learning rate by optimizer.
#include <string>

#include "course/error.hpp"
#include "course_test.hpp"
#include "framework/train_config.hpp"

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
