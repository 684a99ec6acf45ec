// Lesson 02 (given code): Optimizer keeps the state of sgd_momentum_step / adam_step
// (steps 02.1 and 02.2) for every parameter of a network.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

Optimizer::Optimizer(OptimizerConfig config, const std::vector<Parameter>& params, const UpdateRule* extra)
    : config_(std::move(config)), extra_(extra && extra->kind == config_.kind ? extra : nullptr) {
  if (config_.kind != OptimizerKind::sgd && config_.kind != OptimizerKind::adam && !extra_)
    throw course::Error(std::string("this trainer has no optimizer '") + optimizer_name(config_.kind) +
                        "' (expected sgd or adam" + (extra ? std::string(" or ") + optimizer_name(extra->kind) : "") +
                        ")");
  if (!(config_.lr > 0)) throw course::Error("learning rate must be positive, got " + std::to_string(config_.lr));
  const bool two_states = state_arrays(config_, extra_) == 2;
  for (const Parameter& p : params) {
    state1_.emplace_back(p.value.size(), 0.0f);
    if (two_states) state2_.emplace_back(p.value.size(), 0.0f);
  }
}

int Optimizer::state_arrays(const OptimizerConfig& config, const UpdateRule* extra) {
  if (extra && extra->kind == config.kind) return extra->states == 2 ? 2 : 1;
  return config.kind == OptimizerKind::adam ? 2 : 1;
}

void Optimizer::step(std::vector<Parameter>& params, const Ranges& ranges) {
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
      const size_t n = e - b;
      if (extra_) {
        extra_->update(w + b, g + b, s1 + b, s2 ? s2 + b : nullptr, n, config_, steps_);
      } else if (config_.kind == OptimizerKind::sgd) {
        sgd_momentum_step(w + b, g + b, s1 + b, n, config_.lr, config_.momentum, config_.weight_decay);
      } else if (config_.weight_decay == 0.0f) {
        adam_step(w + b, g + b, s1 + b, s2 + b, n, config_.lr, config_.beta1, config_.beta2, config_.eps, steps_);
      } else {  // L2 penalty folded into the gradient, as PyTorch's Adam does
        // Scratch kept per thread (ranges may run on several), grown once, not allocated every step.
        thread_local std::vector<float> decayed;
        decayed.resize(std::max(decayed.size(), n));
        for (size_t k = 0; k < n; ++k) decayed[k] = g[b + k] + config_.weight_decay * w[b + k];
        adam_step(w + b, decayed.data(), s1 + b, s2 + b, n, config_.lr, config_.beta1, config_.beta2, config_.eps,
                  steps_);
      }
    };
    if (ranges)
      ranges(p.value.size(), update);
    else
      update(0, p.value.size());
  }
}

int Optimizer::steps() const { return steps_; }
const OptimizerConfig& Optimizer::config() const { return config_; }

}  // namespace host_training
