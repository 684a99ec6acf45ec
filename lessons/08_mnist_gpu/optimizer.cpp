// Lesson 08 (given code): the optimizer over the whole framework::ParameterStore. SGD is lesson 03's
// sgd_momentum_update, Adam is step 08.6; either way one launch updates every parameter.
#include "optimizer.hpp"

#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "first_kernels.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

DeviceOptimizer::DeviceOptimizer(host_training::OptimizerConfig config, framework::ParameterStore& params,
                                 const DeviceUpdateRule* extra)
    : config_(std::move(config)), params_(params), extra_(extra && extra->kind == config_.kind ? extra : nullptr) {
  if (config_.kind != framework::OptimizerKind::sgd && config_.kind != framework::OptimizerKind::adam && !extra_)
    throw course::Error(std::string("this trainer has no optimizer '") + framework::optimizer_name(config_.kind) +
                        "' (expected sgd or adam" +
                        (extra ? std::string(" or ") + framework::optimizer_name(extra->kind) : "") + ")");
  if (!(config_.lr > 0)) throw course::Error("learning rate must be positive, got " + std::to_string(config_.lr));
  const int states = extra_ ? extra_->states : config_.kind == framework::OptimizerKind::adam ? 2 : 1;
  state_ = course::DeviceBuffer<float>(params_.total() * size_t(states));
  state_.zero();  // velocity, or m and v, start at 0 (as in lesson 02 and PyTorch)
  lr_value_ = config_.lr;
  lr_ = course::DeviceBuffer<float>(std::vector<float>{lr_value_});
}

void DeviceOptimizer::begin_step() { ++steps_; }

void DeviceOptimizer::update_range(size_t offset, size_t count, cudaStream_t stream) {
  if (steps_ < 1) throw course::Error("DeviceOptimizer::update_range before begin_step");
  if (offset > params_.total() || count > params_.total() - offset)
    throw course::Error("DeviceOptimizer::update_range: range outside the parameters");
  float* w = params_.values() + offset;
  const float* g = params_.grads() + offset;
  if (extra_) {
    float* second = extra_->states == 2 ? state_.data() + params_.total() + offset : nullptr;
    extra_->update(w, g, state_.data() + offset, second, count, config_, steps_, lr_.data(), stream);
  } else if (config_.kind == framework::OptimizerKind::sgd) {
    first_kernels::sgd_momentum_update(w, g, state_.data() + offset, count, lr_.data(), config_.momentum,
                                       config_.weight_decay, stream);
  } else {
    float* m = state_.data() + offset;
    float* v = state_.data() + params_.total() + offset;
    adam_update(w, g, m, v, count, lr_.data(), config_.beta1, config_.beta2, config_.eps, config_.weight_decay,
                steps_, stream);
  }
}

void DeviceOptimizer::step(cudaStream_t stream) {
  begin_step();
  update_range(0, params_.total(), stream);
}

void DeviceOptimizer::set_learning_rate(float lr, cudaStream_t stream) {
  if (!(lr > 0)) throw course::Error("DeviceOptimizer::set_learning_rate: the rate must be positive");
  lr_value_ = lr;
  // In stream order: the updates enqueued before read the old rate, those after the new one.
  CUDA_CHECK(cudaMemcpyAsync(lr_.data(), &lr_value_, sizeof(float), cudaMemcpyHostToDevice, stream));
}

std::vector<float> DeviceOptimizer::download_state() const { return state_.to_host(); }

void DeviceOptimizer::restore(const std::vector<float>& state, int steps) {
  if (state.size() != state_.size()) throw course::Error("DeviceOptimizer::restore: wrong state size");
  state_.upload(state);
  steps_ = steps;
}

}  // namespace mnist_gpu
