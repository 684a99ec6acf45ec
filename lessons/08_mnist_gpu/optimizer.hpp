#pragma once
// The optimizer over the whole framework::ParameterStore: SGD with momentum (lesson 03's sgd_momentum_update)
// or Adam (step 08.6's adam_update), with the configuration and formulas of lesson 02's
// host_training::Optimizer. Either way ONE launch updates every parameter (optimizer.cpp).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>  // cudaStream_t

#include "course/device_buffer.hpp"
#include "host_training.hpp"
#include "framework/device_trainer.hpp"
#include "framework/parameter_store.hpp"

namespace mnist_gpu {

// An update rule this lesson does not have (e.g. Adadelta's) for the optimizer `kind`: `states`
// (1 or 2) state arrays of params.total() values each, zeroed at the start; update(w, g, state1,
// state2, n, config, t, lr, stream) launches ONE kernel over n values (state2 null with one state);
// lr points to the optimizer's rate in device memory (config.lr is the rate it started with).
struct DeviceUpdateRule {
  framework::OptimizerKind kind = framework::OptimizerKind::sgd;
  int states = 1;
  std::function<void(float* w, const float* g, float* state1, float* state2, size_t n,
                     const host_training::OptimizerConfig& config, int t, const float* lr, cudaStream_t stream)>
      update;
};

class DeviceOptimizer : public framework::DeviceUpdate {
 public:
  // `extra`: the rule for a kind other than sgd and adam (nullptr: none; it must outlive this).
  DeviceOptimizer(host_training::OptimizerConfig config, framework::ParameterStore& params,
                  const DeviceUpdateRule* extra = nullptr);

  // One update of every parameter from its gradient: ONE kernel launch on `stream`, no waiting.
  void step(cudaStream_t stream = nullptr) override;
  // For the profile: count the step (Adam's t) without updating, then update pieces by hand
  // with update_range. step() == begin_step() + update_range(0, total).
  void begin_step() override;
  void update_range(size_t offset, size_t count, cudaStream_t stream = nullptr) override;

  int steps() const override { return steps_; }
  void set_learning_rate(float lr, cudaStream_t stream) override;
  const host_training::OptimizerConfig& config() const { return config_; }
  // The state as one host vector, and back (the profile runs throw-away steps, then restores).
  std::vector<float> download_state() const override;
  void restore(const std::vector<float>& state, int steps) override;

 private:
  host_training::OptimizerConfig config_;
  framework::ParameterStore& params_;
  course::DeviceBuffer<float> state_;  // SGD: velocity; Adam: m then v; a rule's states one after another
  course::DeviceBuffer<float> lr_;     // the rate, one float, read by the update kernel when it runs
  float lr_value_ = 0;                 // the last rate written (the source of its copy)
  const DeviceUpdateRule* extra_ = nullptr;
  int steps_ = 0;
};

}  // namespace mnist_gpu
