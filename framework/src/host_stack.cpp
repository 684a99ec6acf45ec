// The course framework: a host network as a list of HostLayers (host_layer.hpp).
#include <algorithm>
#include <string>
#include <utility>

#include "course/error.hpp"
#include "framework/host_layer.hpp"

namespace framework {

HostStack::HostStack(ModelSpec spec, std::vector<Parameter> params, const LayerKinds& accepted, const std::string& who)
    : spec_(std::move(spec)), params_(std::move(params)), plan_(plan_layers(spec_)) {
  require_layers(spec_, accepted, who);
  require_parameters_fit(spec_, params_);
  for (Parameter& p : params_) p.grad.assign(p.value.size(), 0.0f);
}

void HostStack::set_layers(std::vector<std::unique_ptr<HostLayer>> layers, std::unique_ptr<HostLoss> loss) {
  if (layers.size() != plan_.size() || !loss)
    throw course::Error("HostStack: " + std::to_string(layers.size()) + " layers for a plan of " +
                        std::to_string(plan_.size()) + (loss ? "" : ", and no loss"));
  for (size_t i = 0; i < layers.size(); ++i)
    if (!layers[i] || layers[i]->plan().spec.kind != plan_[i].spec.kind)
      throw course::Error("HostStack: layer " + std::to_string(i + 1) + " is not the plan's '" +
                          layer_text(plan_[i].spec) + "'");
  layers_ = std::move(layers);
  loss_ = std::move(loss);
  if (!layers_.empty()) layers_.front()->set_input_grad(false);
}

void HostStack::ready(const char* what, int batch) const {
  if (layers_.empty() || !loss_) throw course::Error(std::string("HostStack ") + what + ": the layers are not set");
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
}

void set_training(const HostLayerMakers::Layers& layers, bool training) {
  for (const auto& layer : layers) layer->set_training(training);
}

const float* evaluation_pass(const HostLayerMakers::Layers& layers, const float* x, int batch) {
  set_training(layers, false);
  return chain_forward(layers, x, batch);
}

float training_pass(const HostLayerMakers::Layers& layers, HostLoss& loss, const float* x, const int* labels,
                    int batch) {
  set_training(layers, true);
  const float mean = loss.forward_backward(chain_forward(layers, x, batch), labels, batch);
  chain_backward(layers, x, loss.logits_grad(), batch);
  return mean;
}

void HostStack::forward(const float* x, int batch, float* logits) {
  ready("forward", batch);
  const float* out = evaluation_pass(layers_, x, batch);
  std::copy(out, out + size_t(batch) * size_t(spec_.classes), logits);
}

float HostStack::forward_backward(const float* x, const int* labels, int batch) {
  ready("forward_backward", batch);
  return training_pass(layers_, *loss_, x, labels, batch);
}

const std::vector<float>& HostStack::probabilities() const {
  if (!loss_) throw course::Error("HostStack probabilities: the layers are not set");
  return loss_->probabilities();
}

std::vector<Parameter> HostStack::running_tensors() const {
  std::vector<float> values;
  for (const auto& layer : layers_)
    for (const std::vector<float>* v : layer->running()) values.insert(values.end(), v->begin(), v->end());
  return running_statistics(spec_, values);
}

}  // namespace framework
