// Lesson 08 (given code): the layers' buffers, shapes and workspace sizes. Their forward and
// backward passes are step 08.4 (exercises/network_passes.cpp).
#include "layers.hpp"

#include <algorithm>
#include <cstring>
#include <string>

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

Layer::Layer(std::string name, const host_training::LayerPlan& plan, int max_batch)
    : name_(std::move(name)), plan_(plan), max_batch_(max_batch) {
  if (max_batch < 1) throw course::Error("layer " + name_ + ": max_batch must be >= 1");
  out_ = course::DeviceBuffer<float>(size_t(max_batch) * plan.out_size());
  din_ = course::DeviceBuffer<float>(size_t(max_batch) * plan.in_size());
}

void Layer::check_batch(int batch, const char* what) const {
  if (observer_) observer_->pass_starts(name_, std::strcmp(what, "backward") == 0);
  if (batch < 1 || batch > max_batch_)
    throw course::Error(name_ + " " + what + ": batch " + std::to_string(batch) + " outside 1.." +
                        std::to_string(max_batch_));
}

// ---- conv ----------------------------------------------------------------------------------------
ConvLayer::ConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                     ConvAlgorithm algorithm, ParamView weight, ParamView bias, float* workspace)
    : Layer(std::move(name), plan, max_batch), algorithm_(choose_conv_algorithm(algorithm, plan)),
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

// ---- max-pool ------------------------------------------------------------------------------------
MaxPoolLayer::MaxPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch)
    : Layer(std::move(name), plan, max_batch), argmax_(size_t(max_batch) * plan.out_size()) {}

host_layers::PoolShape MaxPoolLayer::shape(int batch) const { return host_training::pool_shape_of(plan_, batch); }

// ---- dense ---------------------------------------------------------------------------------------
DenseLayer::DenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, ParamView weight,
                       ParamView bias)
    : Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias) {}

// ---- softmax + cross-entropy ---------------------------------------------------------------------
SoftmaxCrossEntropy::SoftmaxCrossEntropy(int classes, int max_batch)
    : classes_(classes), max_batch_(max_batch), probs_(size_t(max_batch) * classes), row_loss_(size_t(max_batch)),
      dlogits_(size_t(max_batch) * classes) {
  if (classes < 1 || max_batch < 1) throw course::Error("SoftmaxCrossEntropy: classes and max_batch must be >= 1");
}

const std::string& SoftmaxCrossEntropy::name() {
  static const std::string loss_name = "loss";
  return loss_name;
}

void SoftmaxCrossEntropy::check_batch(int batch, const char* what) const {
  if (observer_) observer_->pass_starts(name(), std::strcmp(what, "backward") == 0);
  if (batch < 1 || batch > max_batch_)
    throw course::Error(std::string("softmax-cross-entropy ") + what + ": batch " + std::to_string(batch) +
                        " outside 1.." + std::to_string(max_batch_));
}

}  // namespace mnist_gpu
