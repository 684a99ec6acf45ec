// Lesson 09 (given): the fast network's layout, buffers and checks (fast_network.hpp). Its passes
// are step 09.8 (exercises/fast_network_passes.cpp).
#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "fast_network.hpp"
#include "layer_shapes.hpp"

namespace fast_training {

namespace {
using host_training::LayerKind;
[[noreturn]] void unsupported(const host_training::ModelSpec& spec, const std::string& why) {
  throw course::Error("FastNetwork runs blocks conv -> relu -> maxpool, then dense layers with a relu between two; "
                      "model '" + course::shown(spec.name, 80) + "': " + why);
}
}  // namespace

FastNetwork::FastNetwork(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
                         int max_batch, cudaStream_t stream, ConvEngine engine,
                         std::shared_ptr<const ConvKernels> kernels, const GemmProducts* products)
    : spec_(spec), max_batch_(max_batch), stream_(stream), params_(params),
      products_(products ? products : &fp32_products()), kernels_(std::move(kernels)) {
  if (max_batch < 1) throw course::Error("FastNetwork: max_batch must be >= 1, got " + std::to_string(max_batch));
  const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec_);
  input_size_ = size_t(spec_.in_channels) * spec_.height * spec_.width;
  framework::require_parameters_fit(spec_, params);

  size_t i = 0;
  size_t conv_work = 1, dense_work = 1;
  while (i < plan.size() && plan[i].spec.kind == LayerKind::conv) {
    if (i + 2 >= plan.size() || plan[i + 1].spec.kind != LayerKind::relu || plan[i + 2].spec.kind != LayerKind::maxpool)
      unsupported(spec_, "layer " + std::to_string(i + 1) + " (conv) is not followed by relu and maxpool");
    ConvBlock b;
    b.conv = host_training::conv_shape_of(plan[i], max_batch);
    b.pool = host_training::pool_shape_of(plan[i + 2], max_batch);
    if (b.pool.stride != b.pool.window)
      unsupported(spec_, "layer " + std::to_string(i + 3) + " (maxpool) has overlapping windows (stride != window)");
    b.weight = size_t(plan[i].weight);
    b.conv_out = course::DeviceBuffer<float>(b.conv.output_size());
    b.d_conv_out = course::DeviceBuffer<float>(b.conv.output_size());
    b.pooled = course::DeviceBuffer<float>(b.pool.output_size());
    b.d_pooled = course::DeviceBuffer<float>(b.pool.output_size());
    b.argmax = course::DeviceBuffer<int>(b.pool.output_size());
    // The tiled kernel's rules do not depend on the batch: max_batch decides for every batch.
    b.tiled = engine == ConvEngine::tiled && b.conv.in_channels >= kTiledMinChannels && conv_tiled_problem(b.conv).empty();
    if (b.tiled) b.tiled_weights = course::DeviceBuffer<float>(conv_tiled_weights_size(b.conv));
    b.other = kernels_ && kernels_->runs(b.conv);
    if (b.other) b.other_weights = course::DeviceBuffer<unsigned char>(std::max<size_t>(1, kernels_->weights_bytes(b.conv)));
    b.other_dw = b.other && kernels_->runs_weight_gradient(b.conv);
    b.thin_ok = conv_.empty() && thin_conv_problem(b.conv, b.pool).empty();  // the first block only: no dx
    for (int batch = 1; batch <= max_batch; ++batch) {  // the split-K rule is not monotonic in the batch
      const host_layers::ConvShape s = host_training::conv_shape_of(plan[i], batch);
      conv_work = std::max(conv_work, b.tiled ? conv_tiled_dw_workspace_floats(s) : conv_implicit_workspace_floats(s));
      if (b.other_dw) conv_work = std::max(conv_work, kernels_->weight_workspace_floats(s));
      if (b.thin_ok)
        conv_work = std::max(conv_work, thin_conv_dw_workspace_floats(s));
    }
    conv_.push_back(std::move(b));
    i += 3;
  }
  while (i < plan.size()) {
    if (plan[i].spec.kind != LayerKind::dense) unsupported(spec_, "layer " + std::to_string(i + 1) + " is not dense");
    DenseStage d;
    d.in = int(plan[i].in_size());
    d.out = plan[i].out_c;
    d.weight = size_t(plan[i].weight);
    d.relu = i + 1 < plan.size();
    if (d.relu && plan[i + 1].spec.kind != LayerKind::relu)
      unsupported(spec_, "dense layer " + std::to_string(i) + " is followed by something other than relu");
    d.out_buf = course::DeviceBuffer<float>(size_t(max_batch) * d.out);
    d.d_in = course::DeviceBuffer<float>(size_t(max_batch) * d.in);
    for (int batch = 1; batch <= max_batch; ++batch)
      dense_work = std::max(dense_work, dense_fused_workspace_floats(batch, d.in, d.out));
    const bool relu = d.relu;
    dense_.push_back(std::move(d));
    i += relu ? 2 : 1;
  }
  if (dense_.empty()) unsupported(spec_, "no dense layer at the end");
  conv_workspace_ = course::DeviceBuffer<float>(conv_work);
  dense_workspace_ = course::DeviceBuffer<float>(dense_work);
  row_loss_ = course::DeviceBuffer<float>(size_t(max_batch));
  dlogits_ = course::DeviceBuffer<float>(size_t(max_batch) * spec_.classes);
}

void FastNetwork::forward_and_loss(const float* x, const int* labels, int batch) {
  forward(x, batch);
  softmax_cross_entropy_fused(logits(), labels, row_loss_.data(), dlogits_.data(), batch, spec_.classes, stream_);
}

int FastNetwork::other_convs() const {
  return int(std::count_if(conv_.begin(), conv_.end(), [this](const ConvBlock& b) { return b.other && !runs_thin(b); }));
}

int FastNetwork::other_weight_gradients() const {
  return int(std::count_if(conv_.begin(), conv_.end(), [this](const ConvBlock& b) { return b.other_dw && !runs_thin(b); }));
}

int FastNetwork::tiled_convs() const {
  return int(std::count_if(conv_.begin(), conv_.end(), [](const ConvBlock& b) { return b.tiled; }));
}

void FastNetwork::conv_forward(ConvBlock& b, const float* in, int batch) {
  const host_layers::ConvShape s = b.conv_at(batch);
  const float* W = params_.value(b.weight);
  const float* bias = params_.value(b.weight + 1);
  if (runs_thin(b)) {  // conv, ReLU and pool at once: conv_out is not written
    const host_layers::PoolShape p = b.pool_at(batch);
    thin_conv_relu_maxpool(s, p, in, W, bias, b.pooled.data(), b.argmax.data(), stream_);
    return;
  }
  if (b.other) {
    kernels_->forward(s, in, W, bias, b.other_weights.data(), b.conv_out.data(), stream_);
    return;
  }
  if (!b.tiled) {
    products_->conv_forward(s, in, W, bias, b.conv_out.data(), stream_);
    return;
  }
  conv_tiled_weights(s, W, b.tiled_weights.data(), stream_);  // both layouts: the backward's too
  conv2d_forward_tiled(s, in, b.tiled_weights.data(), bias, b.conv_out.data(), stream_);
}

void FastNetwork::set_gradient_hook(GradientHook hook) {
  if (hook && conv_aside_.active()) throw course::Error("FastNetwork: a gradient hook and a branch (09.12) cannot be used together");
  gradient_hook_ = std::move(hook);
}

void FastNetwork::use_branch(Branch* branch) {
  if (branch && gradient_hook_) throw course::Error("FastNetwork: a gradient hook and a branch (09.12) cannot be used together");
  conv_aside_.use(branch, stream_, conv_workspace_.size());
  dense_aside_.use(branch, stream_, dense_workspace_.size());
}

void FastNetwork::conv_backward_weight(ConvBlock& b, const float* in, int batch) {
  const host_layers::ConvShape s = b.conv_at(batch);
  float* dW = params_.grad(b.weight);
  float* dbias = params_.grad(b.weight + 1);
  const WeightGradientAside::Target t =
      conv_aside_.target(stream_, conv_workspace_.data(), &b != &conv_.front());  // conv1 has no dx
  if (runs_thin(b)) {  // through the pool's argmax, from d_pooled
    const host_layers::PoolShape p = b.pool_at(batch);
    thin_conv_backward_weight(s, p, in, b.argmax.data(), b.d_pooled.data(), dW, dbias, t.workspace, t.stream);
  } else if (b.other_dw)
    kernels_->backward_weight(s, in, b.d_conv_out.data(), dW, dbias, t.workspace, t.stream);
  else if (b.tiled)
    conv2d_backward_weight_tiled(s, in, b.d_conv_out.data(), dW, dbias, t.workspace, t.stream);
  else
    products_->conv_backward_weight(s, in, b.d_conv_out.data(), dW, dbias, t.workspace, t.stream);
  gradients_ready(b.weight);
}

void FastNetwork::pool_forward(ConvBlock& b, int batch) {
  if (runs_thin(b)) return;  // conv_forward wrote pooled and argmax
  const host_layers::PoolShape p = b.pool_at(batch);
  relu_maxpool_forward(p, b.conv_out.data(), b.pooled.data(), b.argmax.data(), stream_);
}

void FastNetwork::pool_backward(ConvBlock& b, int batch) {
  if (runs_thin(b)) return;  // conv_backward_weight reads d_pooled and the argmax itself
  const host_layers::PoolShape p = b.pool_at(batch);
  relu_maxpool_backward(p, b.argmax.data(), b.d_pooled.data(), b.d_conv_out.data(), stream_);
}

void FastNetwork::use_thin_first_layer(bool on) { thin_first_ = on; }

bool FastNetwork::thin_first_layer() const { return !conv_.empty() && runs_thin(conv_.front()); }

void FastNetwork::dense_forward(DenseStage& d, const float* in, int batch) {
  products_->dense_forward(in, params_.value(d.weight), params_.value(d.weight + 1), d.out_buf.data(), batch, d.in,
                           d.out, d.relu, dense_workspace_.data(), stream_);
}

void FastNetwork::dense_backward_weight(DenseStage& d, const float* in, const float* dy, int batch) {
  const WeightGradientAside::Target t =
      dense_aside_.target(stream_, dense_workspace_.data(), !(conv_.empty() && &d == &dense_.front()));
  products_->dense_backward_weight(in, dy, params_.grad(d.weight), params_.grad(d.weight + 1), batch, d.in, d.out,
                                   t.workspace, t.stream);
  gradients_ready(d.weight);
}

void FastNetwork::dense_backward_data(DenseStage& d, const float* dy, const float* mask, float* dx, int batch) {
  products_->dense_backward_data(params_.value(d.weight), dy, mask, dx, batch, d.in, d.out, dense_workspace_.data(),
                                 stream_);
}

void FastNetwork::conv_backward_data(ConvBlock& b, float* dx, int batch) {
  const host_layers::ConvShape s = b.conv_at(batch);
  if (b.other) {
    kernels_->backward_data(s, params_.value(b.weight), b.other_weights.data(), b.d_conv_out.data(), dx, stream_);
    return;
  }
  if (b.tiled)
    conv2d_backward_data_tiled(s, b.tiled_weights.data(), b.d_conv_out.data(), dx, stream_);
  else
    products_->conv_backward_data(s, params_.value(b.weight), b.d_conv_out.data(), dx, conv_workspace_.data(),
                                  stream_);
}

void FastNetwork::check_batch(int batch, const char* what) const {
  if (batch < 1 || batch > max_batch_)
    throw course::Error(std::string("FastNetwork::") + what + ": batch " + std::to_string(batch) + " outside 1.." +
                        std::to_string(max_batch_));
}

}  // namespace fast_training
