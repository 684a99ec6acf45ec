// The course framework: what an optimizer is set to (optimizer_config.hpp).
#include "framework/optimizer_config.hpp"

#include <cstdio>

#include "course/error.hpp"

namespace framework {

std::string momentum_text(const OptimizerConfig& config) {
  char text[32] = "";
  if (config.kind == OptimizerKind::sgd) std::snprintf(text, sizeof text, " momentum %g", double(config.momentum));
  if (config.kind == OptimizerKind::adadelta) std::snprintf(text, sizeof text, " rho %g", double(config.rho));
  return text;
}

OptimizerConfig optimizer_config(const TrainConfig& config) {
  OptimizerConfig c;  // Adam's betas and eps, Adadelta's eps: OptimizerConfig's defaults
  c.kind = config.optimizer;
  c.lr = config.learning_rate();
  c.momentum = config.momentum;
  c.rho = config.rho;
  return c;
}

void refuse_optimizer(const OptimizerConfig& config, const std::string& kinds) {
  if (!kinds.empty())
    throw course::Error(std::string("this trainer has no optimizer '") + optimizer_name(config.kind) + "' (expected " +
                        kinds + ")");
  throw course::Error("learning rate must be positive, got " + std::to_string(config.lr));
}

}  // namespace framework
