// Lesson 08 (given code): the max-pool layer's constructor and shape. Its forward and backward
// passes are step 08.1 (exercises/maxpool_layer.cpp).
#include "maxpool_layer.hpp"

#include <utility>

#include "layer_shapes.hpp"

namespace mnist_gpu {

MaxPoolLayer::MaxPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), argmax_(size_t(max_batch) * plan.out_size()) {}

host_layers::PoolShape MaxPoolLayer::shape(int batch) const { return host_training::pool_shape_of(plan_, batch); }

}  // namespace mnist_gpu
