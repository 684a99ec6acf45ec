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

GpuNetwork::GpuNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
                       int max_batch, ConvAlgorithm conv, const LayerMaker& extra_layers,
                       const LossMaker& extra_loss)
    : LayerStack(spec, params, max_batch, make_loss(extra_loss, spec.classes, std::max(max_batch, 1))), conv_(conv),
      loss_(stack_loss()) {
  const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec_);
  const std::vector<std::string> names = layer_names(plan);

  const ParamLookup lookup = [this](const host_training::LayerPlan& p, size_t offset) { return param_view(p, offset); };
  // A later lesson's maker is asked first; the conv workspace is sized for the conv layers it leaves.
  std::vector<std::unique_ptr<Layer>> made(plan.size());
  size_t workspace = 0;
  for (size_t index = 0; index < plan.size(); ++index) {
    const host_training::LayerPlan& p = plan[index];
    if (extra_layers) made[index] = extra_layers(names[index], index, p, max_batch, lookup);
    if (!made[index] && p.spec.kind == LayerKind::conv)
      workspace = std::max(workspace, ConvLayer::workspace_floats(p, max_batch, conv));
  }
  workspace_ = course::DeviceBuffer<float>(workspace);

  for (size_t index = 0; index < plan.size(); ++index) {
    const host_training::LayerPlan& p = plan[index];
    const std::string& name = names[index];
    if (made[index]) {
      add_layer(std::move(made[index]));
      continue;
    }
    switch (p.spec.kind) {
      case LayerKind::conv:
        add_layer(std::make_unique<ConvLayer>(name, p, max_batch, conv, param_view(p, 0), param_view(p, 1),
                                              workspace_.data()));
        break;
      case LayerKind::relu:
        add_layer(std::make_unique<ReluLayer>(name, p, max_batch));
        break;
      case LayerKind::maxpool:
        add_layer(std::make_unique<MaxPoolLayer>(name, p, max_batch));
        break;
      case LayerKind::dense:
        add_layer(std::make_unique<DenseLayer>(name, p, max_batch, param_view(p, 0), param_view(p, 1)));
        break;
      default:  // a layer kind that no maker built
        throw course::Error(framework::refusal("GpuNetwork", index, p.spec, framework::basic_layers()));
    }
  }
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
