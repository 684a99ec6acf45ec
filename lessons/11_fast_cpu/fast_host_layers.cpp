// Lesson 11 (given): this lesson's layers as the framework's host layers (fast_host_layers.hpp).
#include "fast_host_layers.hpp"

#include <memory>

#include "fast_cpu.hpp"
#include "fast_host_network.hpp"  // conv_forward_on_cpu, conv_backward_on_cpu
#include "host_layers.hpp"
#include "layer_shapes.hpp"

namespace fast_cpu {

using framework::HostLayer;
using framework::HostLayerContext;
using framework::HostParams;
using framework::LayerKind;
using framework::LayerPlan;

namespace {

class ConvOnCpu : public HostLayer {
 public:
  ConvOnCpu(const LayerPlan& plan, const HostLayerContext& c)
      : HostLayer(layer_text(plan.spec), plan), params_(*c.params, plan), threads_(c.threads), workspace_(c.scratch) {}
  void forward(const float* x, int batch) override {
    conv_forward_on_cpu(host_training::conv_shape_of(plan_, batch), x, params_.value(0), params_.value(1),
                        output_rows(batch), *workspace_, threads_);
  }
  void backward(const float* x, const float* dy, int batch) override {
    conv_backward_on_cpu(host_training::conv_shape_of(plan_, batch), x, params_.value(0), dy, input_grad_rows(batch),
                         params_.grad(0), params_.grad(1), *workspace_, threads_, input_grad_);
  }

 private:
  HostParams params_;
  int threads_;
  std::vector<float>* workspace_;
};

class DenseOnCpu : public HostLayer {
 public:
  DenseOnCpu(const LayerPlan& plan, const HostLayerContext& c)
      : HostLayer(layer_text(plan.spec), plan), params_(*c.params, plan), threads_(c.threads) {}
  void forward(const float* x, int batch) override {
    dense_forward(x, params_.value(0), params_.value(1), output_rows(batch), batch, int(in_size()), plan_.out_c,
                  threads_);
  }
  void backward(const float* x, const float* dy, int batch) override {
    dense_backward(x, params_.value(0), dy, input_grad_rows(batch), params_.grad(0), params_.grad(1), batch,
                   int(in_size()), plan_.out_c, threads_, input_grad_);
  }

 private:
  HostParams params_;
  int threads_;
};

// Lesson 01's max-pool, remembering which input won for the backward pass.
class MaxPoolOnCpu : public HostLayer {
 public:
  explicit MaxPoolOnCpu(const LayerPlan& plan) : HostLayer(layer_text(plan.spec), plan) {}
  void forward(const float* x, int batch) override {
    float* y = output_rows(batch);
    framework::grow_to(argmax_, out_.size());
    host_layers::maxpool_forward(host_training::pool_shape_of(plan_, batch), x, y, argmax_.data());
  }
  void backward(const float*, const float* dy, int batch) override {
    host_layers::maxpool_backward(host_training::pool_shape_of(plan_, batch), argmax_.data(), dy,
                                  input_grad_rows(batch));
  }

 private:
  std::vector<int> argmax_;
};

void relu_forward(const float* x, float* y, size_t n) { host_layers::relu_forward(x, y, n); }
void relu_backward(const float* x, const float* dy, float* dx, size_t n) { host_layers::relu_backward(x, dy, dx, n); }

}  // namespace

framework::HostLayerMakers& add_fast_host_layers(framework::HostLayerMakers& makers) {
  using Reads = framework::ElementwiseHostLayer::BackwardReads;
  return makers
      .add(LayerKind::conv,
           [](const LayerPlan& p, const HostLayerContext& c, size_t, const auto&) {
             return std::make_unique<ConvOnCpu>(p, c);
           })
      .add(LayerKind::dense,
           [](const LayerPlan& p, const HostLayerContext& c, size_t, const auto&) {
             return std::make_unique<DenseOnCpu>(p, c);
           })
      .add(LayerKind::relu,
           [](const LayerPlan& p, const HostLayerContext&, size_t, const auto&) {
             return std::make_unique<framework::ElementwiseHostLayer>(p, relu_forward, relu_backward, Reads::input);
           })
      .add(LayerKind::maxpool, [](const LayerPlan& p, const HostLayerContext&, size_t, const auto&) {
        return std::make_unique<MaxPoolOnCpu>(p);
      });
}

float SoftmaxCrossEntropyOnCpu::forward_backward(const float* logits, const int* labels, int batch) {
  const size_t n = size_t(batch) * size_t(classes_);
  probs_.resize(n), dlogits_.resize(n);
  const float loss = host_layers::softmax_cross_entropy_forward(logits, labels, probs_.data(), batch, classes_);
  host_layers::softmax_cross_entropy_backward(probs_.data(), labels, dlogits_.data(), batch, classes_);
  return loss;
}

}  // namespace fast_cpu
