// Lesson 02 (given code): HostNetwork's set-up, buffers and inference forward pass.
// forward_backward (step 02.2) is in exercises/forward_backward.cpp.
#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "host_training.hpp"
#include "layer_shapes.hpp"

namespace host_training {

HostNetwork::HostNetwork(ModelSpec spec, std::vector<Parameter> params)
    : spec_(std::move(spec)), params_(std::move(params)), plan_(plan_layers(spec_)) {
  require_layers(spec_, basic_layers(), "HostNetwork");
  framework::require_parameters_fit(spec_, params_);  // what init_parameters would make (values aside)
  for (Parameter& p : params_) p.grad.resize(p.value.size(), 0.0f);
  acts_.resize(plan_.size() + 1);
  grads_.resize(plan_.size() + 1);
  argmax_.resize(plan_.size());
}

const ModelSpec& HostNetwork::spec() const { return spec_; }
std::vector<Parameter>& HostNetwork::parameters() { return params_; }
const std::vector<Parameter>& HostNetwork::parameters() const { return params_; }
const std::vector<LayerPlan>& HostNetwork::plan() const { return plan_; }
const std::vector<float>& HostNetwork::probabilities() const { return probs_; }

void HostNetwork::for_ranges(size_t count, const std::function<void(size_t, size_t)>& body) { body(0, count); }

HostNetwork::Buffers HostNetwork::buffers(const std::vector<LayerPlan>& plan, int classes, int batch) {
  Buffers s;
  const size_t b = size_t(std::max(batch, 0));
  for (const LayerPlan& p : plan) {
    s.acts.push_back(b * p.in_size());
    s.argmax.push_back(p.spec.kind == LayerKind::maxpool ? b * p.out_size() : 0);
  }
  s.acts.push_back(plan.empty() ? 0 : b * plan.back().out_size());
  s.probs = b * size_t(std::max(classes, 0));
  return s;
}

uint64_t HostNetwork::Buffers::bytes() const {
  uint64_t floats = probs, ints = 0;
  for (size_t a : acts) floats += 2 * uint64_t(a);  // the values and their gradients
  for (size_t a : argmax) ints += a;
  return floats * sizeof(float) + ints * sizeof(int);
}

uint64_t HostNetwork::bytes_for(const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch) {
  uint64_t largest = plan.empty() ? 0 : plan.front().in_size();  // forward's `in` and `out`
  for (const LayerPlan& p : plan) largest = std::max<uint64_t>(largest, p.out_size());
  return 2 * sizeof(float) * framework::parameter_values(plan) + buffers(plan, classes, batch).bytes() +
         2 * sizeof(float) * largest * uint64_t(std::max(eval_batch, 0));
}

void HostNetwork::prepare(int batch) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  batch_ = batch;
  const Buffers sizes = buffers(plan_, spec_.classes, batch);
  for (size_t i = 0; i < sizes.acts.size(); ++i) {  // each pass writes them before it reads them
    grow_to(acts_[i], sizes.acts[i]);
    grow_to(grads_[i], sizes.acts[i]);
  }
  for (size_t i = 0; i < sizes.argmax.size(); ++i)
    if (sizes.argmax[i] > 0) grow_to(argmax_[i], sizes.argmax[i]);
  grow_to(probs_, sizes.probs);
}

host_layers::ConvShape HostNetwork::conv_shape(size_t layer, int batch) const {
  return conv_shape_of(plan_.at(layer), batch);
}

host_layers::PoolShape HostNetwork::pool_shape(size_t layer, int batch) const {
  return pool_shape_of(plan_.at(layer), batch);
}

const float* HostNetwork::weight_of(size_t layer) const { return params_.at(size_t(plan_.at(layer).weight)).value.data(); }
const float* HostNetwork::bias_of(size_t layer) const { return params_.at(size_t(plan_.at(layer).weight) + 1).value.data(); }
float* HostNetwork::weight_grad_of(size_t layer) { return params_.at(size_t(plan_.at(layer).weight)).grad.data(); }
float* HostNetwork::bias_grad_of(size_t layer) { return params_.at(size_t(plan_.at(layer).weight) + 1).grad.data(); }

// Inference: each layer reads `in` and writes `out`, then the two buffers swap roles.
// Nothing is kept, so this cannot be followed by a backward pass (see forward_backward).
void HostNetwork::forward(const float* x, int batch, float* logits) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  const size_t b = size_t(batch);
  std::vector<float> in(x, x + b * plan_.front().in_size()), out;
  for (size_t i = 0; i < plan_.size(); ++i) {
    const LayerPlan& p = plan_[i];
    out.resize(b * p.out_size());
    switch (p.spec.kind) {
      case LayerKind::conv:
        host_layers::conv2d_forward(conv_shape(i, batch), in.data(), weight_of(i), bias_of(i), out.data());
        break;
      case LayerKind::relu:
        host_layers::relu_forward(in.data(), out.data(), out.size());
        break;
      case LayerKind::maxpool:
        host_layers::maxpool_forward(pool_shape(i, batch), in.data(), out.data(), static_cast<int*>(nullptr));
        break;
      case LayerKind::dense:  // the NCHW input of each example is already one flat row of in_size() values
        host_layers::dense_forward(in.data(), weight_of(i), bias_of(i), out.data(), batch,
                                   static_cast<int>(p.in_size()), p.out_c);
        break;
      default:  // the constructor let no other kind through
        throw course::Error("HostNetwork::forward: layer '" + layer_text(p.spec) + "' is not one of lesson 02's");
    }
    std::swap(in, out);
  }
  std::copy(in.begin(), in.end(), logits);
}

}  // namespace host_training
