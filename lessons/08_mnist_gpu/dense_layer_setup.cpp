// Lesson 08 (given code): the dense layer's constructor. Its forward and backward passes are
// step 08.1 (exercises/dense_layer.cpp).
#include "dense_layer.hpp"

#include <utility>

namespace mnist_gpu {

DenseLayer::DenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, ParamView weight,
                       ParamView bias)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias) {}

}  // namespace mnist_gpu
