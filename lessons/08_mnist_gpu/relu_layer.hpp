#pragma once
// The ReLU layer: lesson 03's kernels on the whole [batch x C x H x W] tensor at once. No
// parameters, nothing to construct beyond Layer's buffers. Its forward and backward are step
// 08.1 (exercises/relu_layer.cpp).
#include "layer.hpp"

namespace mnist_gpu {

// y = max(x, 0); dx = dy where the INPUT x > 0, else 0. in_size() == out_size().
class ReluLayer : public Layer {
 public:
  using Layer::Layer;
  void forward(const float* x, int batch) override;                     // step 08.1
  void backward(const float* x, const float* dy, int batch) override;   // step 08.1
};

}  // namespace mnist_gpu
