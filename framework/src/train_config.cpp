// The course framework: the optimizers' names (framework/train_config.hpp).
#include "framework/train_config.hpp"

#include "course/error.hpp"

namespace framework {

const char* optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::sgd: return "sgd";
    case OptimizerKind::adam: return "adam";
    case OptimizerKind::adadelta: return "adadelta";
    case OptimizerKind::nesterov: return "nesterov";
  }
  return "?";
}

OptimizerKind optimizer_kind(const std::string& name) {
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam, OptimizerKind::adadelta, OptimizerKind::nesterov})
    if (name == optimizer_name(kind)) return kind;
  throw course::Error("unknown optimizer '" + name + "' (expected sgd, adam, adadelta or nesterov)");
}

}  // namespace framework
