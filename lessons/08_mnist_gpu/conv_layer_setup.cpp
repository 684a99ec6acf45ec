// Lesson 08 (given code): the conv layer's algorithm choice, constructor, shape and workspace
// size. Its forward and backward passes are step 08.1 (exercises/conv_layer.cpp).
#include "conv_layer.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "conv_direct.hpp"
#include "course/error.hpp"
#include "im2col.hpp"
#include "layer_shapes.hpp"

namespace mnist_gpu {

ConvAlgorithm conv_algorithm_by_name(const std::string& name) {
  if (name == "direct") return ConvAlgorithm::direct;
  if (name == "im2col") return ConvAlgorithm::im2col;
  if (name == "auto") return ConvAlgorithm::automatic;
  throw course::Error("unknown convolution algorithm '" + name + "' (expected direct, im2col or auto)");
}

const char* conv_algorithm_name(ConvAlgorithm algorithm) {
  switch (algorithm) {
    case ConvAlgorithm::direct: return "direct";
    case ConvAlgorithm::im2col: return "im2col";
    case ConvAlgorithm::automatic: return "auto";
  }
  return "?";
}

ConvAlgorithm choose_conv_algorithm(ConvAlgorithm requested, const host_training::LayerPlan& plan) {
  if (requested != ConvAlgorithm::automatic) return requested;
  const long long inner = static_cast<long long>(plan.in_c) * plan.spec.kernel * plan.spec.kernel;
  return inner < kDirectBelowK ? ConvAlgorithm::direct : ConvAlgorithm::im2col;
}

ConvLayer::ConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                     ConvAlgorithm algorithm, ParamView weight, ParamView bias, float* workspace)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), algorithm_(choose_conv_algorithm(algorithm, plan)),
      weight_(weight), bias_(bias), workspace_(workspace) {}

host_layers::ConvShape ConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

size_t ConvLayer::workspace_floats(const host_training::LayerPlan& plan, int max_batch, ConvAlgorithm algorithm) {
  algorithm = choose_conv_algorithm(algorithm, plan);
  if (algorithm == ConvAlgorithm::im2col)  // col + Y': grows with the batch
    return im2col::conv_gemm_workspace_floats(host_training::conv_shape_of(plan, max_batch));
  // The direct weight gradient splits its reduction by a rule of the shape (lesson 05), not
  // monotonic in the batch: take the largest over every batch the layer may see.
  size_t most = 0;
  for (int b = 1; b <= max_batch; ++b)
    most = std::max(most, conv_direct::conv2d_backward_weight_workspace(host_training::conv_shape_of(plan, b)));
  return most;
}

}  // namespace mnist_gpu
