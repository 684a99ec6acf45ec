#pragma once
// Lesson 12 (given): sigmoid, tanh and dropout as layers of lesson 08's GPU network, on your
// kernels of 12.1 and 12.2. gpu_layer_maker hands them to GpuNetwork (and so to lesson 08's
// trainer) for the kinds lesson 08 does not build itself.
#include <cstdint>
#include <string>

#include "host_training.hpp"
#include "layer.hpp"
#include "network.hpp"

namespace beyond_mnist {

// sigmoid or tanh over the whole [batch x C x H x W] tensor. Backward reads the layer's own
// output (kept in output()), not its input.
class ActivationLayer : public mnist_gpu::Layer {
 public:
  ActivationLayer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
};

// Dropout, drawing a new mask for every training pass: the c-th forward pass while training
// (c = 0, 1, ...) uses dropout_key(seed, index, c), and the backward pass after it the same key.
// While not training (set_training(false): evaluation) it copies its input.
class DropoutLayer : public mnist_gpu::Layer {
 public:
  DropoutLayer(std::string name, size_t index, const host_training::LayerPlan& plan, int max_batch, uint64_t seed);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  void set_training(bool training) override { training_ = training; }
  uint64_t training_passes() const { return passes_; }

 private:
  int index_;
  uint64_t seed_;
  bool training_ = true;
  bool dropped_ = false;  // whether the last forward pass dropped (backward then applies its mask)
  uint64_t key_ = 0;      // the last training pass's key
  uint64_t passes_ = 0;
};

// Builds ActivationLayer and DropoutLayer (dropout drawing from `seed`) for GpuNetwork, and with
// `fast` its conv and dense layers on lesson 09's kernels where they run them (fast_gpu_layers.hpp);
// the rest stays lesson 08's.
mnist_gpu::LayerMaker gpu_layer_maker(uint64_t seed, bool fast);

}  // namespace beyond_mnist
