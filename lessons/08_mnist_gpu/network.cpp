// Lesson 08 (given code): GpuNetwork's construction. Its passes are the framework's LayerStack's.
#include "network.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/error.hpp"

namespace mnist_gpu {

namespace {
using host_training::LayerKind;

// The LossMaker's loss, or this lesson's where there is none (or it makes none).
std::unique_ptr<framework::DeviceLoss> make_loss(const LossMaker& extra_loss, int classes, int max_batch) {
  std::unique_ptr<framework::DeviceLoss> loss = extra_loss ? extra_loss(classes, max_batch) : nullptr;
  if (!loss) loss = std::make_unique<SoftmaxCrossEntropy>(classes, max_batch);
  return loss;
}
}  // namespace

framework::DeviceLayerMakers& add_gpu_layers(framework::DeviceLayerMakers& makers, ConvAlgorithm conv) {
  using framework::DeviceLayerContext;
  using framework::LayerPlace;
  using host_training::LayerPlan;
  return makers
      .add(LayerKind::conv,
           [conv](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const auto&) {
             return std::make_unique<ConvLayer>(place.name, p, c.max_batch, conv, c.params(p, 0), c.params(p, 1),
                                                nullptr);
           })
      .add(LayerKind::relu,
           [](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const auto&) {
             return std::make_unique<ReluLayer>(place.name, p, c.max_batch);
           })
      .add(LayerKind::maxpool,
           [](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const auto&) {
             return std::make_unique<MaxPoolLayer>(place.name, p, c.max_batch);
           })
      .add(LayerKind::dense, [](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const auto&) {
        return std::make_unique<DenseLayer>(place.name, p, c.max_batch, c.params(p, 0), c.params(p, 1));
      });
}

std::shared_ptr<const framework::DeviceLayerMakers> gpu_layers(ConvAlgorithm conv) {
  auto makers = std::make_shared<framework::DeviceLayerMakers>();
  add_gpu_layers(*makers, conv);
  return makers;
}

GpuNetwork::GpuNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
                       int max_batch, ConvAlgorithm conv, const framework::DeviceLayerMakers* layers,
                       const LossMaker& extra_loss)
    : LayerStack(spec, params, max_batch, make_loss(extra_loss, spec.classes, std::max(max_batch, 1))), conv_(conv),
      loss_(stack_loss()) {
  const std::shared_ptr<const framework::DeviceLayerMakers> own = layers ? nullptr : gpu_layers(conv);
  for (auto& layer : (layers ? *layers : *own).make(host_training::plan_layers(spec_), layer_context()))
    add_layer(std::move(layer));
  // One workspace for every conv layer of this lesson's: they run one after another on one stream.
  size_t workspace = 0;
  for (const auto& layer : layers_)
    if (const auto* c = dynamic_cast<const ConvLayer*>(layer.get()))
      workspace = std::max(workspace, ConvLayer::workspace_floats(c->plan(), max_batch, c->algorithm()));
  workspace_ = course::DeviceBuffer<float>(workspace);
  for (auto& layer : layers_)
    if (auto* c = dynamic_cast<ConvLayer*>(layer.get())) c->use_workspace(workspace_.data());
  layers_added(workspace_.size() * sizeof(float));
}

std::string GpuNetwork::conv_summary() const {
  std::string per_layer;
  for (const auto& layer : layers_) {
    if (layer->plan().spec.kind != LayerKind::conv) continue;
    const auto* conv = dynamic_cast<const ConvLayer*>(layer.get());
    per_layer += (per_layer.empty() ? "" : ", ") + layer->name() + " " +
                 (conv ? std::string(conv_algorithm_name(conv->algorithm())) : layer->kernels());
  }
  const std::string requested = conv_algorithm_name(conv_);
  return conv_ == ConvAlgorithm::automatic && !per_layer.empty() ? requested + " (" + per_layer + ")" : requested;
}

}  // namespace mnist_gpu
