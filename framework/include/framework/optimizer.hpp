#pragma once
// The course framework: the optimizer on the GPU, the same for every trainer. DeviceOptimizer holds
// the settings of optimizer_config.hpp, the state of every parameter in one buffer and the learning
// rate in device memory, and launches ONE update a step. The update kernels are lessons': a lesson
// hands its kernel in as a DeviceUpdateRule; the framework names none of them.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>  // cudaStream_t

#include "course/device_buffer.hpp"
#include "framework/device_trainer.hpp"  // DeviceUpdate
#include "framework/optimizer_config.hpp"
#include "framework/parameter_store.hpp"

namespace framework {

// An update rule on the GPU, for the optimizer `kind`: `states` (1 or 2) state arrays of the
// parameters' size, zeroed at the start; update(w, g, state1, state2, n, config, t, lr, stream)
// launches ONE kernel over n values on `stream` (state2 null with one state; t = 1, 2, ...: the
// step's number; lr: the rate in device memory, read by the kernel when it runs).
struct DeviceUpdateRule {
  OptimizerKind kind = OptimizerKind::sgd;
  int states = 1;
  std::function<void(float* w, const float* g, float* state1, float* state2, size_t n, const OptimizerConfig& config,
                     int t, const float* lr, cudaStream_t stream)>
      update;
};

// The optimizer over a whole ParameterStore: the rule of `rules` for config.kind (the last one
// given: a later lesson's rule replaces an earlier one's; nullptr entries are skipped), its state,
// the rate in device memory. Throws course::Error
// naming the kinds it has when none is config.kind's, or when config.lr is not positive.
class DeviceOptimizer : public DeviceUpdate {
 public:
  DeviceOptimizer(OptimizerConfig config, ParameterStore& params, const std::vector<const DeviceUpdateRule*>& rules);

  // One update of every parameter from its gradient: ONE kernel launch on `stream`, no waiting.
  void step(cudaStream_t stream = nullptr) override;
  // For the profile: count the step (the rule's t) without updating, then update pieces by hand
  // with update_range. step() == begin_step() + update_range(0, total).
  void begin_step() override;
  void update_range(size_t offset, size_t count, cudaStream_t stream = nullptr) override;

  int steps() const override { return steps_; }
  void set_learning_rate(float lr, cudaStream_t stream) override;
  const OptimizerConfig& config() const { return config_; }  // lr: the rate of the updates from now on
  // The state as one host vector, and back (the profile runs throw-away steps, then restores).
  std::vector<float> download_state() const override;
  void restore(const std::vector<float>& state, int steps) override;

 private:
  OptimizerConfig config_;
  ParameterStore& params_;
  const DeviceUpdateRule* rule_ = nullptr;
  course::DeviceBuffer<float> state_;  // the rule's state arrays, one after another
  course::DeviceBuffer<float> lr_;     // config_.lr on the device, read by the update kernel when it runs
  int steps_ = 0;
};

}  // namespace framework
