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

namespace {

enum class Kernels { lesson08, tiled_conv, implicit_conv, dense, relu_pool, activation, dropout };

// Whether layer `index`'s output can never be negative: a ReLU or a sigmoid wrote it, and only
// max-pools and dropouts (which keep the sign) came after.
bool never_negative(const std::vector<host_training::LayerPlan>& plans, size_t index) {
  for (size_t i = index + 1; i-- > 0;) {
    const LayerKind kind = plans[i].spec.kind;
    if (kind == LayerKind::relu || kind == LayerKind::sigmoid) return true;
    if (kind != LayerKind::maxpool && kind != LayerKind::dropout) return false;
  }
  return false;  // the network's input: pixels may have been shifted below 0
}

// Which kernels run layer `index` (with `layers`); `why`, if given, says why lesson 08's.
Kernels kernels_for(const std::vector<host_training::LayerPlan>& plans, size_t index, GpuLayers layers,
                    std::string* why = nullptr) {
  const host_training::LayerPlan& plan = plans[index];
  const bool fast = layers == GpuLayers::lesson09;
  auto lesson08 = [&](const char* reason) {
    if (why) *why = fast ? reason : "--gpu-layers lesson08";
    return Kernels::lesson08;
  };
  switch (plan.spec.kind) {
    case LayerKind::sigmoid:
    case LayerKind::tanh: return Kernels::activation;
    case LayerKind::dropout: return Kernels::dropout;
    case LayerKind::dense: return fast ? Kernels::dense : lesson08("");
    case LayerKind::relu: return fast ? Kernels::relu_pool : lesson08("");
    case LayerKind::conv:
      if (!fast) return lesson08("");
      if (runs_tiled_conv(plan)) return Kernels::tiled_conv;
      if (conv_is_dense(plan)) return Kernels::dense;
      if (plan.spec.stride == 1 || index == 0) return Kernels::implicit_conv;
      return lesson08("a strided convolution's input gradient");
    case LayerKind::maxpool:
      if (!fast) return lesson08("");
      if (plan.spec.stride != plan.spec.window) return lesson08("its windows overlap");
      if (index == 0 || !never_negative(plans, index - 1))
        return lesson08("its input can be negative: lesson 09's pool folds a ReLU in");
      return Kernels::relu_pool;
  }
  return lesson08("");
}

}  // namespace

namespace {

bool thin_first(const std::vector<host_training::LayerPlan>& plans, int max_batch) {
  return plans.size() >= 3 && plans[0].spec.kind == LayerKind::conv && plans[1].spec.kind == LayerKind::relu &&
         plans[2].spec.kind == LayerKind::maxpool && kernels_for(plans, 2, GpuLayers::lesson09) == Kernels::relu_pool &&
         fast_training::thin_conv_problem(host_training::conv_shape_of(plans[0], max_batch),
                                          host_training::pool_shape_of(plans[2], max_batch))
             .empty();
}

}  // namespace

bool runs_thin_first(const host_training::ModelSpec& spec, int max_batch) {
  return thin_first(host_training::plan_layers(spec), max_batch);
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
  auto folds = [plans, layers](size_t index) {  // whether relu `index` is folded into the pool after it
    return plans[index].spec.kind == LayerKind::relu && index + 1 < plans.size() &&
           plans[index + 1].spec.kind == LayerKind::maxpool &&
           kernels_for(plans, index + 1, layers) == Kernels::relu_pool;
  };
  return [plans, seed, layers, last_folded, thin_block, folds, other](const std::string& name, size_t index,
                                                                       const host_training::LayerPlan& plan,
                               int max_batch, mnist_gpu::ParamView weight,
                               mnist_gpu::ParamView bias) -> std::unique_ptr<mnist_gpu::Layer> {
    if (index >= plans.size() || plans[index].spec.kind != plan.spec.kind)
      throw course::Error("gpu_layer_maker: layer " + name + " is not the maker's network's layer " +
                          std::to_string(index + 1));
    const bool input_grad = index > 0;  // the network's input: nobody reads its gradient
    const Kernels kernels = kernels_for(plans, index, layers);
    if (index == 0 && layers == GpuLayers::lesson09 && other.thin_first && thin_first(plans, max_batch)) {
      *thin_block = std::make_shared<ThinBlock>();
      if (other.conv && other.conv->runs(host_training::conv_shape_of(plan, max_batch)))
        return std::make_unique<ThinConvLayer<OtherConvLayer>>(*thin_block, name, plan, max_batch, weight, bias,
                                                               input_grad, other.conv, other.math);
      return std::make_unique<ThinConvLayer<ImplicitConvLayer>>(*thin_block, name, plan, max_batch, weight, bias,
                                                                input_grad, other.math);
    }
    // Other convolution kernels take every conv they run that lesson 09 would have run (a whole-input
    // conv stays a dense product).
    if ((kernels == Kernels::tiled_conv || kernels == Kernels::implicit_conv) && other.conv &&
        other.conv->runs(host_training::conv_shape_of(plan, max_batch)))
      return std::make_unique<OtherConvLayer>(name, plan, max_batch, weight, bias, input_grad, other.conv, other.math);
    switch (kernels) {
      case Kernels::tiled_conv: return std::make_unique<FastConvLayer>(name, plan, max_batch, weight, bias, input_grad);
      case Kernels::implicit_conv:
        return std::make_unique<ImplicitConvLayer>(name, plan, max_batch, weight, bias, input_grad, other.math);
      case Kernels::dense:
        return std::make_unique<FastDenseLayer>(name, plan, max_batch, weight, bias, input_grad, other.math);
      case Kernels::relu_pool: {
        if (folds(index)) {
          auto relu = std::make_unique<FoldedReluLayer>(name, plan, max_batch);
          *last_folded = relu.get();
          return relu;
        }
        const bool after_fold = index > 0 && folds(index - 1);
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
      case Kernels::activation: return std::make_unique<ActivationLayer>(name, plan, max_batch);
      case Kernels::dropout: return std::make_unique<DropoutLayer>(name, index, plan, max_batch, seed);
      case Kernels::lesson08: return nullptr;
    }
    return nullptr;
  };
}

std::string stream_problem(const host_training::ModelSpec& spec) {
  const std::vector<host_training::LayerPlan> plans = host_training::plan_layers(spec);
  for (size_t i = 0; i < plans.size(); ++i) {
    std::string why;
    if (kernels_for(plans, i, GpuLayers::lesson09, &why) == Kernels::lesson08)
      return "layer " + std::to_string(i + 1) + " '" + host_training::layer_text(plans[i].spec) +
             "' runs on lesson 08's kernels (" + why + ")";
  }
  return "";
}

mnist_gpu::LossMaker fused_loss_maker() {
  return [](int classes, int max_batch) { return std::make_unique<FusedSoftmaxCrossEntropy>(classes, max_batch); };
}

}  // namespace beyond_mnist
