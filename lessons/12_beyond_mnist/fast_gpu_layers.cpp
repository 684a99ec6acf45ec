// Lesson 12 (given): lesson 09's kernels as GPU layers (fast_gpu_layers.hpp).
#include "fast_gpu_layers.hpp"

#include <algorithm>

#include "course/error.hpp"
#include "fast_network.hpp"  // kTiledMinChannels
#include "fast_training.hpp"
#include "layer_shapes.hpp"

namespace beyond_mnist {

namespace {

// A tile of the kernel computes 7 neighbouring outputs of a row: an output smaller than 4 x 4 (LeNet-5's
// third convolution gives 1 x 1) leaves most of it idle, and lesson 08's im2col GEMM serves it better.
constexpr int kTiledMinOutputSide = 4;

bool tiled_runs(const host_layers::ConvShape& s) {
  return s.in_channels >= fast_training::kTiledMinChannels && s.out_h() >= kTiledMinOutputSide &&
         s.out_w() >= kTiledMinOutputSide && fast_training::conv_tiled_problem(s).empty();
}

}  // namespace

// Only the tiled kernels: on the H100, 09.2-09.4's implicit GEMM made LeNet-5 slower than lesson
// 08's layers (0.205 s an epoch against 0.187; its third convolution, 16 x 4 x 4 -> 120, alone took
// 0.181 ms a step), so where the tiled kernels do not run, lesson 08's layer does.
bool runs_fast_conv(const host_training::LayerPlan& plan) {
  return plan.spec.kind == host_training::LayerKind::conv && tiled_runs(host_training::conv_shape_of(plan, 1));
}

FastConvLayer::FastConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                             mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad)
    : Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad) {
  if (!runs_fast_conv(plan))
    throw course::Error("FastConvLayer: lesson 09's kernels do not run '" + host_training::layer_text(plan.spec) + "'");
  tiled_weights_ = course::DeviceBuffer<float>(fast_training::conv_tiled_weights_size(shape(max_batch)));
  size_t work = 1;
  for (int b = 1; b <= max_batch; ++b)  // the split of the reduction is not monotonic in the batch
    work = std::max(work, fast_training::conv_tiled_dw_workspace_floats(shape(b)));
  workspace_ = course::DeviceBuffer<float>(work);
}

host_layers::ConvShape FastConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

void FastConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const host_layers::ConvShape s = shape(batch);
  // The tiled kernels read the weights in their own layouts, rewritten from W after every update.
  fast_training::conv_tiled_weights(s, weight_.value, tiled_weights_.data());
  fast_training::conv2d_forward_tiled(s, x, tiled_weights_.data(), bias_.value, output());
}

void FastConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  fast_training::conv2d_backward_weight_tiled(s, x, dy, weight_.grad, bias_.grad, workspace_.data());
  if (input_grad_) fast_training::conv2d_backward_data_tiled(s, tiled_weights_.data(), dy, input_grad());
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
