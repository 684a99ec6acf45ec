// The course framework: the GPU optimizer (optimizer.hpp).
#include "framework/optimizer.hpp"

#include <string>
#include <utility>

#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace framework {

DeviceOptimizer::DeviceOptimizer(OptimizerConfig config, ParameterStore& params,
                                 const std::vector<const DeviceUpdateRule*>& rules)
    : config_(std::move(config)), params_(params) {
  rule_ = checked_rule(config_, rules);
  state_ = course::DeviceBuffer<float>(params_.total() * size_t(rule_->states));
  state_.zero();  // velocity, or m and v, start at 0 (as in lesson 02 and PyTorch)
  lr_ = course::DeviceBuffer<float>(std::vector<float>{config_.lr});
}

void DeviceOptimizer::begin_step() { ++steps_; }

void DeviceOptimizer::update_range(size_t offset, size_t count, cudaStream_t stream) {
  if (steps_ < 1) throw course::Error("DeviceOptimizer::update_range before begin_step");
  if (offset > params_.total() || count > params_.total() - offset)
    throw course::Error("DeviceOptimizer::update_range: range outside the parameters");
  float* second = rule_->states == 2 ? state_.data() + params_.total() + offset : nullptr;
  rule_->update(params_.values() + offset, params_.grads() + offset, state_.data() + offset, second, count, config_,
                steps_, lr_.data(), stream);
}

void DeviceOptimizer::step(cudaStream_t stream) {
  begin_step();
  update_range(0, params_.total(), stream);
}

void DeviceOptimizer::set_learning_rate(float lr, cudaStream_t stream) {
  if (!(lr > 0)) throw course::Error("DeviceOptimizer::set_learning_rate: the rate must be positive");
  config_.lr = lr;
  // In stream order: the updates enqueued before read the old rate, those after the new one.
  CUDA_CHECK(cudaMemcpyAsync(lr_.data(), &config_.lr, sizeof(float), cudaMemcpyHostToDevice, stream));
}

std::vector<float> DeviceOptimizer::download_state() const { return state_.to_host(); }

void DeviceOptimizer::restore(const std::vector<float>& state, int steps) {
  if (state.size() != state_.size()) throw course::Error("DeviceOptimizer::restore: wrong state size");
  state_.upload(state);
  steps_ = steps;
}

}  // namespace framework
