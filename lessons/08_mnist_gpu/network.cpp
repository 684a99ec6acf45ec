// Lesson 08 (given code): GpuNetwork's construction. Its passes are step 08.8
// (exercises/network_passes.cpp).
#include "network.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/error.hpp"

namespace mnist_gpu {

namespace {
using host_training::LayerKind;

// Names by kind, counted from 1: conv1, relu1, pool1, conv2, ..., fc1, fc2, sigmoid1, dropout1
// (the parameters' names come from lesson 02: conv1.weight, fc1.bias, ...).
constexpr int kKinds = 7;
std::string kind_name(LayerKind kind, int number) {
  switch (kind) {
    case LayerKind::conv: return "conv" + std::to_string(number);
    case LayerKind::relu: return "relu" + std::to_string(number);
    case LayerKind::maxpool: return "pool" + std::to_string(number);
    case LayerKind::dense: return "fc" + std::to_string(number);
    case LayerKind::sigmoid: return "sigmoid" + std::to_string(number);
    case LayerKind::tanh: return "tanh" + std::to_string(number);
    case LayerKind::dropout: return "dropout" + std::to_string(number);
  }
  return "layer";
}
// The LossMaker's loss, or this lesson's where there is none (or it makes none).
std::unique_ptr<SoftmaxCrossEntropy> make_loss(const LossMaker& extra_loss, int classes, int max_batch) {
  std::unique_ptr<SoftmaxCrossEntropy> loss = extra_loss ? extra_loss(classes, max_batch) : nullptr;
  return loss ? std::move(loss) : std::make_unique<SoftmaxCrossEntropy>(classes, max_batch);
}
}  // namespace

GpuNetwork::GpuNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
                       int max_batch, ConvAlgorithm conv, const LayerMaker& extra_layers,
                       const LossMaker& extra_loss)
    : spec_(spec), max_batch_(max_batch), conv_(conv), params_(params),
      own_loss_(make_loss(extra_loss, spec.classes, max_batch)), loss_(*own_loss_) {
  if (max_batch < 1) throw course::Error("GpuNetwork: max_batch must be >= 1, got " + std::to_string(max_batch));
  const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec_);
  framework::require_parameters_fit(spec_, params);  // the same check as lesson 02's HostNetwork

  // A later lesson's maker is asked first; the conv workspace is sized for the conv layers it leaves.
  auto view = [&](const host_training::LayerPlan& p, size_t offset) {
    const size_t t = size_t(std::max(p.weight, 0)) + offset;
    return ParamView{params_.value(t), params_.grad(t)};
  };
  int counts[kKinds] = {};
  std::vector<std::string> names;
  std::vector<std::unique_ptr<Layer>> made(plan.size());
  size_t workspace = 0;
  for (size_t index = 0; index < plan.size(); ++index) {
    const host_training::LayerPlan& p = plan[index];
    names.push_back(kind_name(p.spec.kind, ++counts[static_cast<int>(p.spec.kind)]));
    if (extra_layers) made[index] = extra_layers(names.back(), index, p, max_batch, view(p, 0), view(p, 1));
    if (!made[index] && p.spec.kind == LayerKind::conv)
      workspace = std::max(workspace, ConvLayer::workspace_floats(p, max_batch, conv));
  }
  workspace_ = course::DeviceBuffer<float>(workspace);

  for (size_t index = 0; index < plan.size(); ++index) {
    const host_training::LayerPlan& p = plan[index];
    const std::string& name = names[index];
    if (made[index]) {
      layers_.push_back(std::move(made[index]));
      continue;
    }
    switch (p.spec.kind) {
      case LayerKind::conv:
        layers_.push_back(std::make_unique<ConvLayer>(name, p, max_batch, conv, view(p, 0), view(p, 1),
                                                      workspace_.data()));
        break;
      case LayerKind::relu:
        layers_.push_back(std::make_unique<ReluLayer>(name, p, max_batch));
        break;
      case LayerKind::maxpool:
        layers_.push_back(std::make_unique<MaxPoolLayer>(name, p, max_batch));
        break;
      case LayerKind::dense:
        layers_.push_back(std::make_unique<DenseLayer>(name, p, max_batch, view(p, 0), view(p, 1)));
        break;
      default:  // a layer kind that no maker built
        throw course::Error("GpuNetwork: layer '" + host_training::layer_text(p.spec) +
                            "' is not a layer of this trainer (it runs conv, relu, pool and dense); train_beyond "
                            "trains every kind");
    }
  }

  device_bytes_ = (params_.total() * 2 + workspace_.size()) * sizeof(float);
  for (const auto& layer : layers_)
    device_bytes_ += size_t(max_batch) * (layer->in_size() + layer->out_size()) * 4 + layer->own_bytes();
  device_bytes_ += size_t(max_batch) * (2 * size_t(spec_.classes) + 1) * sizeof(float);
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

void GpuNetwork::set_training(bool training) {
  for (auto& layer : layers_) layer->set_training(training);
}

bool GpuNetwork::runs_on_stream() const {
  for (const auto& layer : layers_)
    if (!layer->runs_on_stream()) return false;
  return loss_.runs_on_stream();
}

void GpuNetwork::set_stream(cudaStream_t stream) {
  for (const auto& layer : layers_)
    if (!layer->runs_on_stream())
      throw course::Error("GpuNetwork: layer " + layer->name() +
                          " launches on the default stream only (lesson 08's layer); it cannot run on a stream of "
                          "its own");
  if (!loss_.runs_on_stream())
    throw course::Error("GpuNetwork: the loss launches on the default stream only (lesson 08's)");
  for (auto& layer : layers_) layer->set_stream(stream);
  loss_.set_stream(stream);
  stream_ = stream;
}

void GpuNetwork::forward_and_loss(const float* x, const int* labels, int batch) {
  forward(x, batch);
  loss_.forward(logits(), labels, batch);
}

void GpuNetwork::set_gradient_hook(GradientHook hook) {
  if (hook)
    throw course::Error("GpuNetwork: this network does not report its gradients as its backward pass enqueues "
                        "them");
}

void GpuNetwork::set_observer(PassObserver* observer) {
  for (auto& layer : layers_) layer->set_observer(observer);
  loss_.set_observer(observer);
}

size_t GpuNetwork::input_size() const {
  return size_t(spec_.in_channels) * size_t(spec_.height) * size_t(spec_.width);
}

}  // namespace mnist_gpu
