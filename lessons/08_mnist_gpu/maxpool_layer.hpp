#pragma once
// The max-pooling layer: lesson 06's argmax variant. The forward pass stores, per output, the
// index of its window's first maximum; the backward pass sends each dy there (a gather, no
// atomics). Works for every window and stride. Its forward and backward are step 08.1
// (exercises/maxpool_layer.cpp); the constructor and shape are given (maxpool_layer_setup.cpp).
#include <string>

#include "course/device_buffer.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"
#include "layer.hpp"

namespace mnist_gpu {

class MaxPoolLayer : public Layer {
 public:
  MaxPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  void forward(const float* x, int batch) override;                     // step 08.1
  void backward(const float* x, const float* dy, int batch) override;   // step 08.1
  // Lesson 01's PoolShape of this layer for `batch` examples (what lesson 06 takes).
  host_layers::PoolShape shape(int batch) const;

 private:
  course::DeviceBuffer<int> argmax_;  // max_batch x out_size(): written by forward, read by backward
};

}  // namespace mnist_gpu
