#pragma once
// The dense (fully connected) layer: lesson 04's GEMMs. Its forward and backward are step 08.1
// (exercises/dense_layer.cpp); the constructor is given (dense_layer_setup.cpp).
#include <string>

#include "host_training.hpp"
#include "layer.hpp"

namespace mnist_gpu {

// y [batch x out] = x [batch x in] * W^T + bias, W [out x in] (lesson 01's layout), in = in_size(),
// out = plan().out_c. x is the NCHW output of the layer before, each example's C*H*W values one
// row (a flatten costs nothing).
class DenseLayer : public Layer {
 public:
  DenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, ParamView weight,
             ParamView bias);
  void forward(const float* x, int batch) override;                     // step 08.1
  void backward(const float* x, const float* dy, int batch) override;   // step 08.1

 private:
  ParamView weight_, bias_;
};

}  // namespace mnist_gpu
