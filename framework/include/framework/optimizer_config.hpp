#pragma once
// The course framework: what an optimizer is set to, on the CPU and the GPU alike (the GPU's
// optimizer is optimizer.hpp's).
#include <string>
#include <vector>

#include "framework/train_config.hpp"

namespace framework {

// kind sgd (lr, momentum, weight_decay) or adam (lr, beta1, beta2, eps; weight_decay adds
// weight_decay * w to the gradient first, as PyTorch's Adam does); adadelta (lr, rho,
// adadelta_eps); nesterov (lr, momentum, weight_decay).
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::sgd;
  float lr = 0.05f, momentum = 0.9f, weight_decay = 0.f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float rho = 0.9f, adadelta_eps = 1e-6f;  // PyTorch's Adadelta defaults
};
// The OptimizerConfig a trainer builds from its TrainConfig (kind, lr, momentum, rho; the rest defaults).
OptimizerConfig optimizer_config(const TrainConfig& config);
// What the trainers print after the optimizer's name: " momentum 0.9" for SGD, " rho 0.9" for
// Adadelta, "" for Adam.
std::string momentum_text(const OptimizerConfig& config);

// An optimizer's update rule (the CPU's or the GPU's): the one of `rules` for `kind` (the last one
// given: a later lesson's replaces an earlier one's), or nullptr; `names` gets the kinds there are
// ("sgd or adam"), each once, in the order given.
template <typename Rule>
const Rule* rule_for(OptimizerKind kind, const std::vector<const Rule*>& rules, std::string* names = nullptr) {
  const Rule* found = nullptr;
  std::vector<OptimizerKind> kinds;
  for (const Rule* rule : rules) {
    if (!rule) continue;
    if (rule->kind == kind) found = rule;
    bool seen = false;
    for (OptimizerKind k : kinds) seen = seen || k == rule->kind;
    if (seen) continue;
    kinds.push_back(rule->kind);
    if (names) *names += std::string(names->empty() ? "" : " or ") + optimizer_name(rule->kind);
  }
  return found;
}

// The rule an optimizer made with `config` runs (rule_for), checked: course::Error naming the kinds
// `rules` has when none is config.kind's, or when config.lr is not positive.
void refuse_optimizer(const OptimizerConfig& config, const std::string& kinds);  // the error, thrown
template <typename Rule>
const Rule* checked_rule(const OptimizerConfig& config, const std::vector<const Rule*>& rules) {
  std::string names;
  const Rule* rule = rule_for(config.kind, rules, &names);
  if (!rule || !(config.lr > 0)) refuse_optimizer(config, rule ? std::string() : names);
  return rule;
}

}  // namespace framework
