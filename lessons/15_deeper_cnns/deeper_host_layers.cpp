// Lesson 15 (given): every kind of layer as a host layer (deeper_host_layers.hpp).
#include "deeper_host_layers.hpp"

#include <string>
#include <utility>

#include "beyond_host_layers.hpp"  // lesson 12's sigmoid, tanh and dropout
#include "deeper_cnns.hpp"
#include "deeper_host_network.hpp"  // kBatchNormEps, kBatchNormMomentum
#include "fast_host_layers.hpp"     // lesson 11's convolutions, dense layers, ReLU and max-pool

namespace deeper_cnns {

using framework::HostLayer;
using framework::HostLayerContext;
using framework::LayerPlace;
using framework::HostParams;
using framework::LayerKind;
using framework::LayerPlan;

namespace {

using Layers = std::vector<std::unique_ptr<HostLayer>>;

// Global average pooling (your 15.5).
class GlobalAvgPoolOnCpu : public HostLayer {
 public:
  explicit GlobalAvgPoolOnCpu(const LayerPlan& plan) : HostLayer(layer_text(plan.spec), plan) {}
  void forward(const float* x, int batch) override {
    global_avg_pool_forward(x, output_rows(batch), batch, plan_.in_c, plan_.in_h * plan_.in_w);
  }
  void backward(const float*, const float* dy, int batch) override {
    global_avg_pool_backward(dy, input_grad_rows(batch), batch, plan_.in_c, plan_.in_h * plan_.in_w);
  }
};

// A res block: y = body(x) + shortcut(x), each a chain of its own (the shortcut empty: x itself).
// x fed both paths, so dL/dx is the sum of what comes back along each.
class ResidualOnCpu : public HostLayer {
 public:
  ResidualOnCpu(const LayerPlan& plan, Layers body, Layers shortcut)
      : HostLayer(layer_text(plan.spec), plan), body_(std::move(body)), shortcut_(std::move(shortcut)) {}
  void forward(const float* x, int batch) override {
    const float* main = framework::chain_forward(body_, x, batch);
    const float* skip = framework::chain_forward(shortcut_, x, batch);
    float* y = output_rows(batch);
    for (size_t i = 0, n = size_t(batch) * out_size(); i < n; ++i) y[i] = main[i] + skip[i];
  }
  void backward(const float* x, const float* dy, int batch) override {
    const float* through_body = framework::chain_backward(body_, x, dy, batch);
    const float* through_skip = framework::chain_backward(shortcut_, x, dy, batch);
    float* dx = input_grad_rows(batch);
    if (input_grad_)
      for (size_t i = 0, n = size_t(batch) * in_size(); i < n; ++i) dx[i] = through_body[i] + through_skip[i];
  }
  void set_training(bool training) override {
    framework::set_training(body_, training);
    framework::set_training(shortcut_, training);
  }
  void set_input_grad(bool needed) override {  // the block's input is its paths' first layers' input
    HostLayer::set_input_grad(needed);
    for (Layers* list : {&body_, &shortcut_})
      if (!list->empty()) list->front()->set_input_grad(needed);
  }
  std::vector<const std::vector<float>*> running() const override {
    std::vector<const std::vector<float>*> all;
    for (const Layers* list : {&body_, &shortcut_})
      for (const auto& layer : *list)
        for (const std::vector<float>* v : layer->running()) all.push_back(v);
    return all;
  }

 private:
  Layers body_, shortcut_;
};

BatchNormShape norm_shape(const LayerPlan& p, int batch) { return {batch, p.out_c, p.out_h, p.out_w}; }

}  // namespace

BatchNormOnCpu::BatchNormOnCpu(const LayerPlan& plan, const HostParams& params)
    : HostLayer(layer_text(plan.spec), plan), params_(params), mean_(size_t(plan.out_c)), inv_std_(size_t(plan.out_c)),
      run_mean_(size_t(plan.out_c), 0.0f), run_var_(size_t(plan.out_c), 1.0f) {}  // PyTorch's start

void BatchNormOnCpu::forward(const float* x, int batch) {
  float* y = output_rows(batch);
  if (training_)
    batch_norm_forward_train(norm_shape(plan_, batch), x, params_.value(0), params_.value(1), kBatchNormEps,
                             kBatchNormMomentum, y, mean_.data(), inv_std_.data(), run_mean_.data(), run_var_.data());
  else
    batch_norm_forward_eval(norm_shape(plan_, batch), x, params_.value(0), params_.value(1), run_mean_.data(),
                            run_var_.data(), kBatchNormEps, y);
}

void BatchNormOnCpu::backward(const float* x, const float* dy, int batch) {
  batch_norm_backward(norm_shape(plan_, batch), x, dy, params_.value(0), mean_.data(), inv_std_.data(),
                      input_grad_rows(batch), params_.grad(0), params_.grad(1));
}

const framework::HostLayerMakers& deeper_host_layers() {
  static const framework::HostLayerMakers makers = [] {
    framework::HostLayerMakers m;
    fast_cpu::add_fast_host_layers(m);
    beyond_mnist::add_beyond_host_layers(m);
    m.add(LayerKind::batch_norm,
          [](const LayerPlan& p, const HostLayerContext& c, const LayerPlace&, const auto&) {
            return std::make_unique<BatchNormOnCpu>(p, c.params_of(p));
          })
        .add(LayerKind::global_avg_pool,
             [](const LayerPlan& p, const HostLayerContext&, const LayerPlace&, const auto&) {
               return std::make_unique<GlobalAvgPoolOnCpu>(p);
             })
        .add(LayerKind::residual, [](const LayerPlan& p, const HostLayerContext&, const LayerPlace&, const auto& inner) {
          Layers body = inner(p.body);  // its body's layers take the places after it, then its shortcut's
          Layers shortcut = inner(p.shortcut);
          return std::make_unique<ResidualOnCpu>(p, std::move(body), std::move(shortcut));
        });
    return m;
  }();
  return makers;
}

}  // namespace deeper_cnns
