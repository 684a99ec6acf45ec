#pragma once
// This lesson's update kernels as the framework's optimizer takes them (framework/optimizer.hpp):
// SGD with momentum (lesson 03's sgd_momentum_update) and Adam (step 08.2's adam_update), each ONE
// launch over every parameter. DeviceOptimizer is the framework's optimizer with these two rules
// (and, where a later lesson hands one in, its own).
#include <utility>
#include <vector>

#include "framework/optimizer.hpp"

namespace mnist_gpu {

using DeviceUpdateRule = framework::DeviceUpdateRule;

const DeviceUpdateRule& sgd_device_rule();   // lesson 03's sgd_momentum_update
const DeviceUpdateRule& adam_device_rule();  // 08.2's adam_update
// This lesson's rules, and a later lesson's after them where it hands one in (`extra`: Adadelta's, a
// scheduled one; nullptr: none; for its kind it replaces this lesson's): the list the optimizer and
// gpu_kit() take.
inline std::vector<const DeviceUpdateRule*> device_update_rules(const DeviceUpdateRule* extra = nullptr) {
  return {&sgd_device_rule(), &adam_device_rule(), extra};
}

class DeviceOptimizer : public framework::DeviceOptimizer {
 public:
  // `extra` (see device_update_rules) must outlive the optimizer.
  DeviceOptimizer(framework::OptimizerConfig config, framework::ParameterStore& params,
                  const DeviceUpdateRule* extra = nullptr)
      : framework::DeviceOptimizer(std::move(config), params, device_update_rules(extra)) {}
};

}  // namespace mnist_gpu
