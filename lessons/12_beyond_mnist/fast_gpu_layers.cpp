// Lesson 12 (given): lesson 09's kernels as GPU layers (fast_gpu_layers.hpp).
#include "fast_gpu_layers.hpp"

#include <algorithm>

#include "course/error.hpp"
#include "fast_network.hpp"  // kTiledMinChannels
#include "fast_training.hpp"
#include "layer_shapes.hpp"

namespace beyond_mnist {

namespace {

bool tiled_runs(const host_layers::ConvShape& s) {
  return s.in_channels >= fast_training::kTiledMinChannels && fast_training::conv_tiled_problem(s).empty();
}

// 09.3's backward data needs stride 1; a GEMM with a short inner dimension (in_c * k * k, as
// lesson 08's rule) is better served by lesson 05's direct kernels.
bool implicit_runs(const host_layers::ConvShape& s) {
  return s.stride == 1 && s.in_channels * s.kernel_h * s.kernel_w >= mnist_gpu::kDirectBelowK;
}

}  // namespace

bool runs_fast_conv(const host_training::LayerPlan& plan) {
  const host_layers::ConvShape s = host_training::conv_shape_of(plan, 1);
  return plan.spec.kind == host_training::LayerKind::conv && (tiled_runs(s) || implicit_runs(s));
}

FastConvLayer::FastConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                             mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad)
    : Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad) {
  if (!runs_fast_conv(plan))
    throw course::Error("FastConvLayer: lesson 09's kernels do not run '" + host_training::layer_text(plan.spec) + "'");
  const host_layers::ConvShape s = shape(max_batch);
  tiled_ = tiled_runs(s);
  if (tiled_) tiled_weights_ = course::DeviceBuffer<float>(fast_training::conv_tiled_weights_size(s));
  size_t work = 1;
  for (int b = 1; b <= max_batch; ++b)  // 09.4's split of the reduction is not monotonic in the batch
    work = std::max(work, tiled_ ? fast_training::conv_tiled_dw_workspace_floats(shape(b))
                                 : fast_training::conv_implicit_workspace_floats(shape(b)));
  workspace_ = course::DeviceBuffer<float>(work);
}

host_layers::ConvShape FastConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

void FastConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const host_layers::ConvShape s = shape(batch);
  if (!tiled_) {
    fast_training::conv2d_forward_implicit(s, x, weight_.value, bias_.value, output());
    return;
  }
  // The tiled kernels read the weights in their own layouts, rewritten from W after every update.
  fast_training::conv_tiled_weights(s, weight_.value, tiled_weights_.data());
  fast_training::conv2d_forward_tiled(s, x, tiled_weights_.data(), bias_.value, output());
}

void FastConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  if (tiled_) {
    fast_training::conv2d_backward_weight_tiled(s, x, dy, weight_.grad, bias_.grad, workspace_.data());
    if (input_grad_) fast_training::conv2d_backward_data_tiled(s, tiled_weights_.data(), dy, input_grad());
    return;
  }
  fast_training::conv2d_backward_weight_implicit(s, x, dy, weight_.grad, bias_.grad, workspace_.data());
  if (input_grad_) fast_training::conv2d_backward_data_implicit(s, weight_.value, dy, input_grad(), workspace_.data());
}

FastDenseLayer::FastDenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                               mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad)
    : Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad) {
  size_t work = 1;
  for (int b = 1; b <= max_batch; ++b)
    work = std::max(work, fast_training::dense_fused_workspace_floats(b, int(plan.in_size()), plan.out_c));
  workspace_ = course::DeviceBuffer<float>(work);
}

void FastDenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  fast_training::dense_forward_fused(x, weight_.value, bias_.value, output(), batch, int(in_size()), plan_.out_c,
                                     false, workspace_.data());
}

void FastDenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const int in = int(in_size()), out = plan_.out_c;
  fast_training::dense_backward_weight_fused(x, dy, weight_.grad, bias_.grad, batch, in, out, workspace_.data());
  if (input_grad_)
    fast_training::dense_backward_data_fused(weight_.value, dy, nullptr, input_grad(), batch, in, out, workspace_.data());
}

}  // namespace beyond_mnist
