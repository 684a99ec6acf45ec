// Lesson 12 (given): the GPU layers of sigmoid, tanh and dropout (beyond_gpu_layers.hpp).
#include "beyond_gpu_layers.hpp"

#include <memory>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "dropout_keys.hpp"
#include "fast_gpu_layers.hpp"
#include "layer_shapes.hpp"

namespace beyond_mnist {

const framework::LayerKinds& layer_kinds() {
  using framework::LayerKind;
  static const framework::LayerKinds kinds =
      framework::more_layers(framework::basic_layers(), {LayerKind::sigmoid, LayerKind::tanh, LayerKind::dropout},
                             "conv, relu, pool, dense, sigmoid, tanh and dropout");
  return kinds;
}

using host_training::LayerKind;

ActivationLayer::ActivationLayer(std::string name, const host_training::LayerPlan& plan, int max_batch)
    : mnist_gpu::Layer(std::move(name), plan, max_batch) {
  if (plan.spec.kind != LayerKind::sigmoid && plan.spec.kind != LayerKind::tanh)
    throw course::Error("ActivationLayer: '" + host_training::layer_text(plan.spec) + "' is not sigmoid or tanh");
}

void ActivationLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const size_t n = size_t(batch) * out_size();
  if (plan_.spec.kind == LayerKind::sigmoid)
    sigmoid_forward_gpu(x, output(), n, stream_);
  else
    tanh_forward_gpu(x, output(), n, stream_);
}

void ActivationLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  const size_t n = size_t(batch) * in_size();
  if (plan_.spec.kind == LayerKind::sigmoid)
    sigmoid_backward_gpu(output(), dy, input_grad(), n, stream_);
  else
    tanh_backward_gpu(output(), dy, input_grad(), n, stream_);
}

DropoutLayer::DropoutLayer(std::string name, size_t index, const host_training::LayerPlan& plan, int max_batch,
                           uint64_t seed)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), index_(int(index)), seed_(seed), key_and_passes_(2) {
  check_dropout_rate("DropoutLayer", plan.spec.rate);
  key_and_passes_.zero();
}

void DropoutLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const size_t n = size_t(batch) * out_size();
  dropped_ = training_ && plan_.spec.rate > 0.0f;
  if (!dropped_) {  // evaluation (or rate 0): the identity
    CUDA_CHECK(cudaMemcpyAsync(output(), x, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    return;
  }
  uint64_t* key = key_and_passes_.data();
  next_dropout_key(seed_, index_, key + 1, key, stream_);
  dropout_forward_gpu(x, output(), n, plan_.spec.rate, key, stream_);
}

void DropoutLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  const size_t n = size_t(batch) * in_size();
  if (!dropped_) {
    CUDA_CHECK(cudaMemcpyAsync(input_grad(), dy, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    return;
  }
  dropout_backward_gpu(dy, input_grad(), n, plan_.spec.rate, key_and_passes_.data(), stream_);
}

const char* kernels_name(LayerKernels kernels) {
  switch (kernels) {
    case LayerKernels::lesson08: return "lesson08";
    case LayerKernels::tiled_conv: return "tiled_conv";
    case LayerKernels::implicit_conv: return "implicit_conv";
    case LayerKernels::dense: return "dense";
    case LayerKernels::relu_pool: return "relu_pool";
    case LayerKernels::folded_relu: return "folded_relu";
    case LayerKernels::activation: return "activation";
    case LayerKernels::dropout: return "dropout";
  }
  return "?";
}

namespace {

// Your choice (12.4) for every layer of the list.
std::vector<LayerKernels> choices(const std::vector<host_training::LayerPlan>& plans, GpuLayers layers) {
  std::vector<LayerKernels> chosen;
  for (size_t i = 0; i < plans.size(); ++i) chosen.push_back(choose_kernels(plans, i, layers));
  return chosen;
}

// A first conv, relu and max-pool that lesson 09's thin kernels run (09.13), with the relu folded
// into the pool.
bool thin_first(const std::vector<host_training::LayerPlan>& plans, int max_batch) {
  return plans.size() >= 3 && plans[0].spec.kind == LayerKind::conv && plans[1].spec.kind == LayerKind::relu &&
         plans[2].spec.kind == LayerKind::maxpool &&
         choose_kernels(plans, 2, GpuLayers::lesson09) == LayerKernels::relu_pool &&
         fast_training::thin_conv_problem(host_training::conv_shape_of(plans[0], max_batch),
                                          host_training::pool_shape_of(plans[2], max_batch))
             .empty();
}

}  // namespace

bool runs_thin_first(const host_training::ModelSpec& spec, int max_batch) {
  return thin_first(host_training::plan_layers(spec), max_batch);
}

std::unique_ptr<mnist_gpu::Layer> product_layer(LayerKernels kernels, const std::string& name,
                                                const host_training::LayerPlan& plan, int max_batch,
                                                mnist_gpu::ParamView weight, mnist_gpu::ParamView bias,
                                                bool input_grad, const OtherKernels& other) {
  // Other convolution kernels take every conv they run that lesson 09 would have run.
  if ((kernels == LayerKernels::tiled_conv || kernels == LayerKernels::implicit_conv) && other.conv &&
      other.conv->runs(host_training::conv_shape_of(plan, max_batch)))
    return std::make_unique<OtherConvLayer>(name, plan, max_batch, weight, bias, input_grad, other.conv, other.products);
  switch (kernels) {
    case LayerKernels::tiled_conv: return std::make_unique<FastConvLayer>(name, plan, max_batch, weight, bias, input_grad);
    case LayerKernels::implicit_conv:
      return std::make_unique<ImplicitConvLayer>(name, plan, max_batch, weight, bias, input_grad, other.products);
    case LayerKernels::dense:
      return std::make_unique<FastDenseLayer>(name, plan, max_batch, weight, bias, input_grad, other.products);
    default: return nullptr;
  }
}

mnist_gpu::LayerMaker gpu_layer_maker(const host_training::ModelSpec& spec, uint64_t seed, GpuLayers layers,
                                      const OtherKernels& other) {
  const std::vector<host_training::LayerPlan> plans = host_training::plan_layers(spec);
  // A relu right before a pool on lesson 09's kernel is folded into it. GpuNetwork asks for the
  // layers in order, so the pool after it is asked for next: it gets the relu made last.
  auto last_folded = std::make_shared<FoldedReluLayer*>(nullptr);
  // A thin first conv (09.13) and the pool two layers later share a ThinBlock: made with the conv,
  // handed to the pool when the pool is made.
  auto thin_block = std::make_shared<std::shared_ptr<ThinBlock>>();
  const std::vector<LayerKernels> chosen = choices(plans, layers);
  return [plans, seed, layers, last_folded, thin_block, chosen, other](
             const std::string& name, size_t index, const host_training::LayerPlan& plan, int max_batch,
             const mnist_gpu::ParamLookup& lookup) -> std::unique_ptr<mnist_gpu::Layer> {
    if (index >= plans.size() || plans[index].spec.kind != plan.spec.kind)
      throw course::Error("gpu_layer_maker: layer " + name + " is not the maker's network's layer " +
                          std::to_string(index + 1));
    const mnist_gpu::ParamView weight = lookup(plan, 0), bias = lookup(plan, 1);
    const bool input_grad = index > 0;  // the network's input: nobody reads its gradient
    const LayerKernels kernels = chosen[index];
    if (index == 0 && layers == GpuLayers::lesson09 && other.thin_first && thin_first(plans, max_batch)) {
      *thin_block = std::make_shared<ThinBlock>();
      if (other.conv && other.conv->runs(host_training::conv_shape_of(plan, max_batch)))
        return std::make_unique<ThinConvLayer<OtherConvLayer>>(*thin_block, name, plan, max_batch, weight, bias,
                                                               input_grad, other.conv, other.products);
      return std::make_unique<ThinConvLayer<ImplicitConvLayer>>(*thin_block, name, plan, max_batch, weight, bias,
                                                                input_grad, other.products);
    }
    if (auto layer = product_layer(kernels, name, plan, max_batch, weight, bias, input_grad, other)) return layer;
    switch (kernels) {
      case LayerKernels::tiled_conv:
      case LayerKernels::implicit_conv:
      case LayerKernels::dense: break;  // product_layer's
      case LayerKernels::folded_relu: {
        if (index + 1 >= chosen.size() || chosen[index + 1] != LayerKernels::relu_pool)
          throw course::Error("gpu_layer_maker: choose_kernels folds " + name +
                              " into a next layer that is not a relu_pool max-pool: its output would never be written");
        auto relu = std::make_unique<FoldedReluLayer>(name, plan, max_batch);
        *last_folded = relu.get();
        return relu;
      }
      case LayerKernels::relu_pool: {
        const bool after_fold = index > 0 && chosen[index - 1] == LayerKernels::folded_relu;
        if (after_fold && !*last_folded)
          throw course::Error("gpu_layer_maker: " + name + " was asked for before the relu folded into it");
        FoldedReluLayer* relu = after_fold ? *last_folded : nullptr;
        *last_folded = nullptr;
        auto pool = std::make_unique<ReluPoolLayer>(name, plan, max_batch, relu);
        if (index == 2 && *thin_block) {  // the thin first conv's pool
          pool->share_thin_block(*thin_block);
          (*thin_block)->pool = pool.get();
          *thin_block = nullptr;
        }
        return pool;
      }
      case LayerKernels::activation: return std::make_unique<ActivationLayer>(name, plan, max_batch);
      case LayerKernels::dropout: return std::make_unique<DropoutLayer>(name, index, plan, max_batch, seed);
      case LayerKernels::lesson08: return nullptr;
    }
    return nullptr;
  };
}

std::string stream_problem(const host_training::ModelSpec& spec) {
  const std::vector<host_training::LayerPlan> plans = host_training::plan_layers(spec);
  for (size_t i = 0; i < plans.size(); ++i) {
    std::string why;
    if (choose_kernels(plans, i, GpuLayers::lesson09, &why) == LayerKernels::lesson08)
      return "layer " + std::to_string(i + 1) + " '" + host_training::layer_text(plans[i].spec) +
             "' runs on lesson 08's kernels (" + why + ")";
  }
  return "";
}

mnist_gpu::LossMaker fused_loss_maker() {
  return [](int classes, int max_batch) { return std::make_unique<FusedSoftmaxCrossEntropy>(classes, max_batch); };
}

}  // namespace beyond_mnist
