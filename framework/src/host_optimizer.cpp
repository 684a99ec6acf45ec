// The course framework: the optimizer on the CPU (host_optimizer.hpp).
#include "framework/host_optimizer.hpp"

#include <string>
#include <utility>

#include "course/error.hpp"

namespace framework {

HostOptimizer::HostOptimizer(OptimizerConfig config, const std::vector<Parameter>& params,
                             const std::vector<const HostUpdateRule*>& rules)
    : config_(std::move(config)) {
  rule_ = checked_rule(config_, rules);
  for (const Parameter& p : params) {
    state1_.emplace_back(p.value.size(), 0.0f);
    if (rule_->states == 2) state2_.emplace_back(p.value.size(), 0.0f);
  }
}

int HostOptimizer::state_arrays(const OptimizerConfig& config, const std::vector<const HostUpdateRule*>& rules) {
  const HostUpdateRule* rule = rule_for(config.kind, rules);
  return rule && rule->states == 2 ? 2 : 1;
}

void HostOptimizer::step(std::vector<Parameter>& params, const Ranges& ranges) {
  if (params.size() != state1_.size())
    throw course::Error("Optimizer::step: " + std::to_string(params.size()) + " parameters, the optimizer was made for " +
                        std::to_string(state1_.size()));
  ++steps_;
  for (size_t i = 0; i < params.size(); ++i) {
    Parameter& p = params[i];
    if (p.value.size() != state1_[i].size() || p.grad.size() != p.value.size())
      throw course::Error("Optimizer::step: parameter '" + p.name + "' changed size");
    float* const w = p.value.data();
    const float* const g = p.grad.data();
    float* const s1 = state1_[i].data();
    float* const s2 = state2_.empty() ? nullptr : state2_[i].data();
    // Elements [b, e) of this parameter: every rule updates each element from its own values only.
    auto update = [&](size_t b, size_t e) {
      rule_->update(w + b, g + b, s1 + b, s2 ? s2 + b : nullptr, e - b, config_, steps_);
    };
    if (ranges)
      ranges(p.value.size(), update);
    else
      update(0, p.value.size());
  }
}

}  // namespace framework
