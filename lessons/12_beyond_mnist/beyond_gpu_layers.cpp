// Lesson 12 (given): the GPU layers of sigmoid, tanh and dropout (beyond_gpu_layers.hpp).
#include "beyond_gpu_layers.hpp"

#include <memory>

#include "beyond_mnist.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "dropout_mask.hpp"
#include "fast_gpu_layers.hpp"

namespace beyond_mnist {

using host_training::LayerKind;

ActivationLayer::ActivationLayer(std::string name, const host_training::LayerPlan& plan, int max_batch)
    : Layer(std::move(name), plan, max_batch) {
  if (plan.spec.kind != LayerKind::sigmoid && plan.spec.kind != LayerKind::tanh)
    throw course::Error("ActivationLayer: '" + host_training::layer_text(plan.spec) + "' is not sigmoid or tanh");
}

void ActivationLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const size_t n = size_t(batch) * out_size();
  if (plan_.spec.kind == LayerKind::sigmoid)
    sigmoid_forward_gpu(x, output(), n);
  else
    tanh_forward_gpu(x, output(), n);
}

void ActivationLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  const size_t n = size_t(batch) * in_size();
  if (plan_.spec.kind == LayerKind::sigmoid)
    sigmoid_backward_gpu(output(), dy, input_grad(), n);
  else
    tanh_backward_gpu(output(), dy, input_grad(), n);
}

DropoutLayer::DropoutLayer(std::string name, size_t index, const host_training::LayerPlan& plan, int max_batch,
                           uint64_t seed)
    : Layer(std::move(name), plan, max_batch), index_(int(index)), seed_(seed) {
  check_dropout_rate("DropoutLayer", plan.spec.rate);
}

void DropoutLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const size_t n = size_t(batch) * out_size();
  dropped_ = training_ && plan_.spec.rate > 0.0f;
  if (!dropped_) {  // evaluation (or rate 0): the identity
    CUDA_CHECK(cudaMemcpyAsync(output(), x, n * sizeof(float), cudaMemcpyDeviceToDevice));
    return;
  }
  key_ = dropout_key(seed_, index_, passes_++);
  dropout_forward_gpu(x, output(), n, plan_.spec.rate, key_);
}

void DropoutLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  const size_t n = size_t(batch) * in_size();
  if (!dropped_) {
    CUDA_CHECK(cudaMemcpyAsync(input_grad(), dy, n * sizeof(float), cudaMemcpyDeviceToDevice));
    return;
  }
  dropout_backward_gpu(dy, input_grad(), n, plan_.spec.rate, key_);
}

mnist_gpu::LayerMaker gpu_layer_maker(uint64_t seed, bool fast) {
  return [seed, fast](const std::string& name, size_t index, const host_training::LayerPlan& plan, int max_batch,
                      mnist_gpu::ParamView weight, mnist_gpu::ParamView bias) -> std::unique_ptr<mnist_gpu::Layer> {
    const bool input_grad = index > 0;  // the network's input: nobody reads its gradient
    switch (plan.spec.kind) {
      case LayerKind::conv:
        if (fast && runs_fast_conv(plan))
          return std::make_unique<FastConvLayer>(name, plan, max_batch, weight, bias, input_grad);
        return nullptr;
      case LayerKind::dense:
        if (fast) return std::make_unique<FastDenseLayer>(name, plan, max_batch, weight, bias, input_grad);
        return nullptr;
      case LayerKind::sigmoid:
      case LayerKind::tanh: return std::make_unique<ActivationLayer>(name, plan, max_batch);
      case LayerKind::dropout: return std::make_unique<DropoutLayer>(name, index, plan, max_batch, seed);
      default: return nullptr;
    }
  };
}

}  // namespace beyond_mnist
