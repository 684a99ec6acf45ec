// The course framework: a GPU layer list (layer_stack.hpp).
#include "framework/layer_stack.hpp"

#include <algorithm>
#include <cstring>

#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace framework {

DeviceLayer::DeviceLayer(std::string name, const LayerPlan& plan, int max_batch)
    : ChainLayer(std::move(name), plan), max_batch_(max_batch) {
  if (max_batch < 1) throw course::Error("layer " + name_ + ": max_batch must be >= 1");
  out_ = course::DeviceBuffer<float>(size_t(max_batch) * plan.out_size());
  din_ = course::DeviceBuffer<float>(size_t(max_batch) * plan.in_size());
}

void DeviceLayer::check_batch(int batch, const char* what) const {
  if (observer_) observer_->pass_starts(name_, std::strcmp(what, "backward") == 0);
  if (batch < 1 || batch > max_batch_)
    throw course::Error(name_ + " " + what + ": batch " + std::to_string(batch) + " outside 1.." +
                        std::to_string(max_batch_));
}

LayerStack::LayerStack(const ModelSpec& spec, const std::vector<Parameter>& params, int max_batch,
                       std::unique_ptr<DeviceLoss> loss)
    : spec_(spec), max_batch_(max_batch), params_((require_parameters_fit(spec, params), params)),
      loss_(std::move(loss)) {
  if (max_batch < 1) throw course::Error("network: max_batch must be >= 1, got " + std::to_string(max_batch));
  if (!loss_) throw course::Error("network: no loss was given");
}

ParamView LayerStack::param_view(const LayerPlan& plan, size_t offset) {
  const size_t t = size_t(std::max(plan.weight, 0)) + offset;
  return ParamView{params_.value(t), params_.grad(t)};
}

DeviceLayerContext LayerStack::layer_context() {
  DeviceLayerContext context;
  context.max_batch = max_batch_;
  context.params = [this](const LayerPlan& plan, size_t offset) { return param_view(plan, offset); };
  return context;
}

void LayerStack::layers_added(size_t extra_bytes) {
  device_bytes_ = params_.total() * 2 * sizeof(float) + extra_bytes;
  for (const auto& layer : layers_)
    device_bytes_ += layer->buffer_bytes() + layer->own_bytes();
  device_bytes_ += size_t(max_batch_) * (2 * size_t(spec_.classes) + 1) * sizeof(float);
}

size_t LayerStack::input_size() const {
  return size_t(spec_.in_channels) * size_t(spec_.height) * size_t(spec_.width);
}

void LayerStack::forward(const float* x, int batch) { chain_forward(layers_, x, batch); }

void LayerStack::forward_backward(const float* x, const int* labels, int batch) {
  forward(x, batch);
  loss_->forward(logits(), labels, batch);
  loss_->backward(labels, batch);
  chain_backward(layers_, x, loss_->logits_grad(), batch);
}

void LayerStack::forward_and_loss(const float* x, const int* labels, int batch) {
  forward(x, batch);
  loss_->forward(logits(), labels, batch);
}

void LayerStack::set_observer(PassObserver* observer) {
  for (auto& layer : layers_) layer->set_observer(observer);
  loss_->set_observer(observer);
}

void LayerStack::set_training(bool training) {
  for (auto& layer : layers_) layer->set_training(training);
}

bool LayerStack::runs_on_stream() const {
  for (const auto& layer : layers_)
    if (!layer->runs_on_stream()) return false;
  return loss_->runs_on_stream();
}

void LayerStack::set_stream(cudaStream_t stream) {
  for (const auto& layer : layers_)
    if (!layer->runs_on_stream())
      throw course::Error("network: layer " + layer->name() +
                          " launches on the default stream only; it cannot run on a stream of its own");
  if (!loss_->runs_on_stream())
    throw course::Error("network: the loss launches on the default stream only");
  for (auto& layer : layers_) layer->set_stream(stream);
  loss_->set_stream(stream);
  stream_ = stream;
}

void LayerStack::set_gradient_hook(GradientHook hook) {
  if (hook)
    throw course::Error("network: this network does not report its gradients as its backward pass enqueues them");
}

std::vector<float> LayerStack::download_buffers() {
  std::vector<float> values;
  for (auto& layer : layers_)
    for (const auto& [device, n] : layer->buffers()) {
      values.resize(values.size() + n);
      CUDA_CHECK(cudaMemcpy(values.data() + values.size() - n, device, n * sizeof(float), cudaMemcpyDeviceToHost));
    }
  return values;
}

void LayerStack::upload_buffers(const std::vector<float>& values) {
  size_t total = 0;
  for (auto& layer : layers_)
    for (const auto& buffer : layer->buffers()) total += buffer.second;
  if (total != values.size())  // checked first: nothing is written when the sizes differ
    throw course::Error("network: upload_buffers got " + std::to_string(values.size()) + " values, its layers hold " +
                        std::to_string(total));
  size_t at = 0;
  for (auto& layer : layers_)
    for (const auto& [device, n] : layer->buffers()) {
      CUDA_CHECK(cudaMemcpy(device, values.data() + at, n * sizeof(float), cudaMemcpyHostToDevice));
      at += n;
    }
}

}  // namespace framework
