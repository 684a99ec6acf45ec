// Lesson 12 (given): sigmoid, tanh and dropout as the framework's host layers (beyond_host_layers.hpp).
#include "beyond_host_layers.hpp"

#include <cstdint>
#include <memory>

#include "beyond_mnist.hpp"
#include "dropout_mask.hpp"

namespace beyond_mnist {

using framework::HostLayer;
using framework::HostLayerContext;
using framework::LayerPlace;
using framework::LayerKind;
using framework::LayerPlan;

namespace {

class DropoutOnCpu : public HostLayer {
 public:
  DropoutOnCpu(const LayerPlan& plan, uint64_t seed, size_t place)
      : HostLayer(layer_text(plan.spec), plan), seed_(seed), place_(int(place)) {}
  void set_training(bool training) override { training_ = training; }
  void forward(const float* x, int batch) override {  // evaluation: rate 0, the identity
    dropout_forward(x, output_rows(batch), size_t(batch) * in_size(), training_ ? plan_.spec.rate : 0.0f, key());
  }
  void backward(const float*, const float* dy, int batch) override {  // this pass's key: the same mask
    dropout_backward(dy, input_grad_rows(batch), size_t(batch) * in_size(), plan_.spec.rate, key());
    ++passes_;  // the next training pass draws a new mask
  }

 private:
  uint64_t key() const { return dropout_key(seed_, place_, passes_); }
  uint64_t seed_;
  int place_;
  uint64_t passes_ = 0;
  bool training_ = true;
};

}  // namespace

framework::HostLayerMakers& add_beyond_host_layers(framework::HostLayerMakers& makers) {
  using framework::ElementwiseHostLayer;
  using Reads = ElementwiseHostLayer::BackwardReads;  // sigmoid and tanh need only their output
  return makers
      .add(LayerKind::sigmoid,
           [](const LayerPlan& p, const HostLayerContext&, const LayerPlace&, const auto&) {
             return std::make_unique<ElementwiseHostLayer>(p, sigmoid_forward, sigmoid_backward, Reads::output);
           })
      .add(LayerKind::tanh,
           [](const LayerPlan& p, const HostLayerContext&, const LayerPlace&, const auto&) {
             return std::make_unique<ElementwiseHostLayer>(p, tanh_forward, tanh_backward, Reads::output);
           })
      .add(LayerKind::dropout, [](const LayerPlan& p, const HostLayerContext& c, const LayerPlace& place, const auto&) {
        return std::make_unique<DropoutOnCpu>(p, c.seed, place.at);
      });
}

}  // namespace beyond_mnist
