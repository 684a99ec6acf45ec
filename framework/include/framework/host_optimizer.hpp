#pragma once
// The course framework: the optimizer on the CPU, the same for every CPU trainer. HostOptimizer
// holds the settings of optimizer_config.hpp and the state of every parameter, and runs the update
// rule of the run's kind over each parameter. The update functions are lessons': a lesson hands its
// function in as a HostUpdateRule; the framework names none of them.
#include <cstddef>
#include <functional>
#include <vector>

#include "framework/model.hpp"  // Parameter
#include "framework/optimizer_config.hpp"

namespace framework {

// An update rule on the CPU, for the optimizer `kind`: `states` (1 or 2) state arrays per
// parameter, zeroed at the start; update(w, g, state1, state2, n, config, t) changes w and the
// states of n values (state2 is null with one state; t = 1, 2, ...: the step's number).
struct HostUpdateRule {
  OptimizerKind kind = OptimizerKind::sgd;
  int states = 1;
  std::function<void(float* w, const float* g, float* state1, float* state2, size_t n, const OptimizerConfig& config,
                     int t)>
      update;
};

class HostOptimizer {
 public:
  // Zero state for every parameter, for the rule of `rules` of config.kind (the last one given: a
  // later lesson's rule replaces an earlier one's; nullptr entries are skipped). Throws
  // course::Error naming the kinds it has when none is config.kind's, or when config.lr is not
  // positive. The rules must outlive the optimizer.
  HostOptimizer(OptimizerConfig config, const std::vector<Parameter>& params,
                const std::vector<const HostUpdateRule*>& rules);
  // One update of every parameter from its grad (params must be the list given to the constructor).
  // ranges (optional): runs each parameter's update on ranges of its elements, e.g. a network's
  // threads; the update is element by element, so the ranges change no result.
  using Ranges = std::function<void(size_t count, const std::function<void(size_t begin, size_t end)>& body)>;
  void step(std::vector<Parameter>& params, const Ranges& ranges = {});
  int steps() const { return steps_; }  // updates done so far (the t of the last step)
  const OptimizerConfig& config() const { return config_; }
  // The state arrays each parameter gets (each of the parameter's size): the rule's for
  // config.kind, 1 when `rules` has none (the constructor refuses that).
  static int state_arrays(const OptimizerConfig& config, const std::vector<const HostUpdateRule*>& rules);

 private:
  OptimizerConfig config_;
  const HostUpdateRule* rule_ = nullptr;
  std::vector<std::vector<float>> state1_, state2_;
  int steps_ = 0;
};

}  // namespace framework
