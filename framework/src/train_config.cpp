// The course framework: the optimizers' names (framework/train_config.hpp).
#include "framework/train_config.hpp"

#include <cctype>

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

int TrainConfig::lr_drops_by(int epoch) const {
  int drops = 0;
  for (int first : lr_drops) drops += epoch + 1 >= first;
  return drops;
}

float TrainConfig::learning_rate_after(int drops) const {
  // Divided in double, then rounded once: 0.05 drops to the float nearest 0.005, not to the one above.
  double rate = learning_rate();
  for (int d = 0; d < drops; ++d) rate /= 10;
  return float(rate);
}

std::vector<int> parse_lr_drops(const std::string& text, int epochs) {
  std::vector<int> drops;
  if (text.empty()) return drops;
  auto error = [&](const std::string& why) { return course::Error("--lr-drops '" + text.substr(0, 80) + "': " + why); };
  const std::string expected = " (expected epochs counted from 1, comma-separated and increasing, e.g. 6,9)";
  size_t at = 0;
  while (true) {
    const size_t comma = text.find(',', at);
    const std::string token = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (token.empty() || token.size() > 9) throw error("'" + token.substr(0, 12) + "' is not an epoch" + expected);
    for (char c : token)
      if (!std::isdigit(static_cast<unsigned char>(c))) throw error("'" + token + "' is not an epoch" + expected);
    const int epoch = std::stoi(token);
    if (epoch < 2 || epoch > epochs)
      throw error("epoch " + token + " is outside [2, " + std::to_string(epochs) + "] (--epochs " +
                  std::to_string(epochs) + "; epoch 1 trains at --lr)");
    if (!drops.empty() && epoch <= drops.back()) throw error("the epochs must increase");
    drops.push_back(epoch);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return drops;
}

}  // namespace framework
