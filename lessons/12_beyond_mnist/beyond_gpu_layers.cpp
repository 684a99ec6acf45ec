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

// The ThinBlock of a thin first conv (either kind of convolution it runs on), else null.
std::shared_ptr<ThinBlock> thin_block_of(mnist_gpu::Layer* layer) {
  if (auto* conv = dynamic_cast<ThinConvLayer<ImplicitConvLayer>*>(layer)) return conv->thin_block();
  if (auto* conv = dynamic_cast<ThinConvLayer<OtherConvLayer>*>(layer)) return conv->thin_block();
  return nullptr;
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

void fold_relu_into_pool(framework::DeviceLayerMakers::Layers& layers) {
  for (size_t i = 0; i < layers.size(); ++i) {
    auto* relu = dynamic_cast<FoldedReluLayer*>(layers[i].get());
    if (!relu) continue;
    auto* pool = i + 1 < layers.size() ? dynamic_cast<ReluPoolLayer*>(layers[i + 1].get()) : nullptr;
    if (!pool || pool->plan().spec.kind != LayerKind::maxpool)  // a ReLU on 09.5's kernel is no pool
      throw course::Error("choose_kernels folds " + relu->name() +
                          " into a next layer that is not a relu_pool max-pool: its output would never be written");
    pool->fold(relu);
  }
}

void share_thin_block(framework::DeviceLayerMakers::Layers& layers) {
  const std::shared_ptr<ThinBlock> thin = layers.empty() ? nullptr : thin_block_of(layers[0].get());
  if (!thin) return;
  auto* pool = layers.size() >= 3 ? dynamic_cast<ReluPoolLayer*>(layers[2].get()) : nullptr;
  if (!pool) throw course::Error("a thin first conv (09.13) needs lesson 09's max-pool two layers after it");
  pool->share_thin_block(thin);
  thin->pool = pool;
}

std::shared_ptr<const framework::DeviceLayerMakers> beyond_gpu_layers(uint64_t seed, GpuLayers layers,
                                                                      const OtherKernels& other,
                                                                      mnist_gpu::ConvAlgorithm conv) {
  using framework::DeviceLayerContext;
  using framework::LayerPlace;
  auto makers = std::make_shared<framework::DeviceLayerMakers>();
  mnist_gpu::add_gpu_layers(*makers, conv);
  for (LayerKind kind : layer_kinds().kinds) {
    // What your choose_kernels (12.4) leaves to lesson 08 goes to lesson 08's maker.
    const framework::DeviceLayerMakers::Make lesson08 = makers->maker(kind);
    makers->add(kind, [seed, layers, other, lesson08](const host_training::LayerPlan& plan, const DeviceLayerContext& c,
                                                      const LayerPlace& place,
                                                      const framework::DeviceLayerMakers::Inner& inner)
                          -> std::unique_ptr<mnist_gpu::Layer> {
      const std::vector<host_training::LayerPlan>& list = *place.list;
      const mnist_gpu::ParamView weight = c.params(plan, 0), bias = c.params(plan, 1);
      const bool input_grad = !place.reads_network_input;  // nobody reads the network input's gradient
      const LayerKernels kernels = choose_kernels(list, place.index, layers);
      if (place.reads_network_input && layers == GpuLayers::lesson09 && other.thin_first &&
          thin_first(list, c.max_batch)) {
        auto thin = std::make_shared<ThinBlock>();  // the pool two layers on shares it (share_thin_block)
        if (other.conv && other.conv->runs(host_training::conv_shape_of(plan, c.max_batch)))
          return std::make_unique<ThinConvLayer<OtherConvLayer>>(thin, place.name, plan, c.max_batch, weight, bias,
                                                                 input_grad, other.conv, other.products);
        return std::make_unique<ThinConvLayer<ImplicitConvLayer>>(thin, place.name, plan, c.max_batch, weight, bias,
                                                                  input_grad, other.products);
      }
      if (auto layer = product_layer(kernels, place.name, plan, c.max_batch, weight, bias, input_grad, other))
        return layer;
      switch (kernels) {
        case LayerKernels::folded_relu:  // the pool after it takes it (fold_relu_into_pool)
          return std::make_unique<FoldedReluLayer>(place.name, plan, c.max_batch);
        case LayerKernels::relu_pool: return std::make_unique<ReluPoolLayer>(place.name, plan, c.max_batch);
        case LayerKernels::activation: return std::make_unique<ActivationLayer>(place.name, plan, c.max_batch);
        case LayerKernels::dropout:
          return std::make_unique<DropoutLayer>(place.name, place.at, plan, c.max_batch, seed);
        case LayerKernels::lesson08:
          if (lesson08) return lesson08(plan, c, place, inner);
          break;
        default: break;  // conv and dense kernels: product_layer's
      }
      throw course::Error("beyond_gpu_layers: no layer for '" + host_training::layer_text(plan.spec) + "' on " +
                          kernels_name(kernels));
    });
  }
  makers->add_pass(kFoldReluIntoPool, fold_relu_into_pool).add_pass(kShareThinBlock, share_thin_block);
  return makers;
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
