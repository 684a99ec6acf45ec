#pragma once
// Lesson 15 (given): batch norm (your 15.1), global average pooling (your 15.5) and the res block as
// host layers of the framework (framework/host_layer.hpp), and every kind a layer list can name
// registered at once: lesson 11's convolutions, dense layers, ReLU and max-pool, lesson 12's sigmoid,
// tanh and dropout, and this lesson's three. A res block is a layer made of layers: its body and its
// shortcut are chains of their own (framework::chain_forward).
#include <vector>

#include "framework/host_layer.hpp"

namespace deeper_cnns {

// Every kind of the model language: lessons 11's and 12's layers, then bn, globalavg and res.
const framework::HostLayerMakers& deeper_host_layers();

// Batch norm's statistics: those of the last training pass and the running ones [channels].
class BatchNormOnCpu : public framework::HostLayer {
 public:
  BatchNormOnCpu(const framework::LayerPlan& plan, const framework::HostParams& params);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override { training_ = training; }
  std::vector<const std::vector<float>*> running() const override { return {&run_mean_, &run_var_}; }
  const std::vector<float>& running_mean() const { return run_mean_; }
  const std::vector<float>& running_var() const { return run_var_; }

 private:
  framework::HostParams params_;
  bool training_ = true;
  std::vector<float> mean_, inv_std_, run_mean_, run_var_;
};

}  // namespace deeper_cnns
