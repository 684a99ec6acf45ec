// Lesson 12 (given): lesson 09's kernels as GPU layers (fast_gpu_layers.hpp): what each layer checks
// and allocates. Their passes are yours (exercises/fast_layer_passes.cpp, 12.5).
#include "fast_gpu_layers.hpp"

#include <algorithm>

#include "course/error.hpp"
#include "fast_network.hpp"  // kTiledMinChannels
#include "fast_training.hpp"
#include "layer_shapes.hpp"
#include "network.hpp"

namespace beyond_mnist {

using host_training::LayerKind;

namespace {

// A tile of the kernel computes 7 neighbouring outputs of a row: an output smaller than 4 x 4 leaves
// most of it idle (an implicit GEMM serves it better).
constexpr int kTiledMinOutputSide = 4;

bool tiled_runs(const host_layers::ConvShape& s) {
  return s.in_channels >= fast_training::kTiledMinChannels && s.out_h() >= kTiledMinOutputSide &&
         s.out_w() >= kTiledMinOutputSide && fast_training::conv_tiled_problem(s).empty();
}

// The largest workspace any batch of 1..max_batch needs: the split of a reduction is not
// monotonic in the batch.
template <typename Floats>
size_t largest_workspace(int max_batch, Floats floats_at) {
  size_t work = 1;
  for (int b = 1; b <= max_batch; ++b) work = std::max(work, floats_at(b));
  return work;
}

}  // namespace

int use_branch(mnist_gpu::GpuNetwork& net, fast_training::Branch* branch) {
  int count = 0;
  for (const std::unique_ptr<mnist_gpu::Layer>& layer : net.layers())
    if (auto* branching = dynamic_cast<BranchingLayer*>(layer.get())) {
      branching->use_branch(branch);
      ++count;
    }
  return count;
}

std::string kernels_text(const std::string& what, const fast_training::GemmProducts& products) {
  return &products == &fast_training::fp32_products() ? what : what + " " + products.name;
}

bool runs_tiled_conv(const host_training::LayerPlan& plan) {
  return plan.spec.kind == LayerKind::conv && tiled_runs(host_training::conv_shape_of(plan, 1));
}

bool conv_is_dense(const host_training::LayerPlan& plan) {
  return plan.spec.kind == LayerKind::conv && plan.spec.pad == 0 && plan.spec.kernel == plan.in_h &&
         plan.spec.kernel == plan.in_w && plan.out_h == 1 && plan.out_w == 1;
}

// ---- conv on the tiled kernels ---------------------------------------------------------------------
FastConvLayer::FastConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                             mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad) {
  if (!runs_tiled_conv(plan))
    throw course::Error("FastConvLayer: lesson 09's kernels do not run '" + host_training::layer_text(plan.spec) + "'");
  tiled_weights_ = course::DeviceBuffer<float>(fast_training::conv_tiled_weights_size(shape(max_batch)));
  workspace_ = course::DeviceBuffer<float>(
      largest_workspace(max_batch, [&](int b) { return fast_training::conv_tiled_dw_workspace_floats(shape(b)); }));
}

host_layers::ConvShape FastConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

// ---- conv as implicit GEMMs --------------------------------------------------------------------------
ImplicitConvLayer::ImplicitConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                                     mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad,
                                     const fast_training::GemmProducts* products)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad),
      products_(products ? *products : fast_training::fp32_products()) {
  if (plan.spec.kind != LayerKind::conv || (input_grad && plan.spec.stride != 1))
    throw course::Error("ImplicitConvLayer: lesson 09's implicit GEMMs do not run '" +
                        host_training::layer_text(plan.spec) + "' (the input gradient needs stride 1)");
  workspace_ = course::DeviceBuffer<float>(
      largest_workspace(max_batch, [&](int b) { return fast_training::conv_implicit_workspace_floats(shape(b)); }));
}

host_layers::ConvShape ImplicitConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

// ---- conv on other kernels (lesson 10's) ---------------------------------------------------------------
OtherConvLayer::OtherConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                               mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad,
                               std::shared_ptr<const fast_training::ConvKernels> kernels,
                               const fast_training::GemmProducts* products)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad),
      kernels_(std::move(kernels)), products_(products ? *products : fast_training::fp32_products()) {
  if (!kernels_ || plan.spec.kind != LayerKind::conv || !kernels_->runs(shape(max_batch)))
    throw course::Error("OtherConvLayer: " + (kernels_ ? kernels_->name() : std::string("no kernels")) +
                        " do not run '" + host_training::layer_text(plan.spec) + "'");
  own_weights_ = course::DeviceBuffer<unsigned char>(std::max<size_t>(1, kernels_->weights_bytes(shape(max_batch))));
  their_dw_ = kernels_->runs_weight_gradient(shape(max_batch));
  tiled_dw_ = !their_dw_ && tiled_runs(shape(1));
  workspace_ = course::DeviceBuffer<float>(largest_workspace(max_batch, [&](int b) {
    return their_dw_ ? kernels_->weight_workspace_floats(shape(b))
           : tiled_dw_ ? fast_training::conv_tiled_dw_workspace_floats(shape(b))
                       : fast_training::conv_implicit_workspace_floats(shape(b));
  }));
}

host_layers::ConvShape OtherConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

void OtherConvLayer::use_kernels(std::shared_ptr<const fast_training::ConvKernels> kernels) {
  const host_layers::ConvShape most = shape(max_batch_);
  if (!kernels || kernels->name() != kernels_->name() || !kernels->runs(most) ||
      kernels->weights_bytes(most) != kernels_->weights_bytes(most) ||
      kernels->runs_weight_gradient(most) != their_dw_)
    throw course::Error("OtherConvLayer::use_kernels: " + name_ + " runs " + kernels_->name() +
                        "; other kernels need a layer of their own");
  kernels_ = std::move(kernels);
}

// ---- dense (and whole-input conv) on the fused products -------------------------------------------------
FastDenseLayer::FastDenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                               mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad,
                               const fast_training::GemmProducts* products)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad),
      products_(products ? *products : fast_training::fp32_products()) {
  if (plan.spec.kind != LayerKind::dense && !conv_is_dense(plan))
    throw course::Error("FastDenseLayer: '" + host_training::layer_text(plan.spec) + "' is not a dense product");
  workspace_ = course::DeviceBuffer<float>(largest_workspace(max_batch, [&](int b) {
    return fast_training::dense_fused_workspace_floats(b, int(plan.in_size()), plan.out_c);
  }));
}

// ---- the thin first conv, its relu and pool in one kernel (lesson 09's 09.13) ------------------------------
template <class Conv>
void ThinConvLayer<Conv>::allocate_workspace() {
  thin_workspace_ = course::DeviceBuffer<float>(largest_workspace(
      this->max_batch(), [&](int b) { return fast_training::thin_conv_dw_workspace_floats(this->shape(b)); }));
}
template void ThinConvLayer<ImplicitConvLayer>::allocate_workspace();
template void ThinConvLayer<OtherConvLayer>::allocate_workspace();

// ---- relu and pool on 09.5's kernels ---------------------------------------------------------------------
ReluPoolLayer::ReluPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                             FoldedReluLayer* folded)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), folded_(folded) {
  if (plan.spec.kind != LayerKind::relu &&
      !(plan.spec.kind == LayerKind::maxpool && plan.spec.stride == plan.spec.window))
    throw course::Error("ReluPoolLayer: '" + host_training::layer_text(plan.spec) +
                        "' is not a ReLU or a max-pool whose windows do not overlap");
  argmax_ = course::DeviceBuffer<int>(size_t(max_batch) * plan.out_size());
}

host_layers::PoolShape ReluPoolLayer::shape(int batch) const {
  if (plan_.spec.kind == LayerKind::maxpool) return host_training::pool_shape_of(plan_, batch);
  host_layers::PoolShape s;  // ReLU: every input its own 1x1 window
  s.batch = batch, s.channels = plan_.in_c, s.height = plan_.in_h, s.width = plan_.in_w;
  s.window = s.stride = 1;
  return s;
}

std::string ReluPoolLayer::kernels() const {
  return folded_ ? "ReLU and max-pool in one pass (lesson 09)" : "ReLU max-pool (lesson 09)";
}

}  // namespace beyond_mnist
