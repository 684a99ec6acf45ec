// Lesson 12 (given): lesson 09's kernels as GPU layers (fast_gpu_layers.hpp).
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

void FastConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  const host_layers::ConvShape s = shape(batch);
  // The tiled kernels read the weights in their own layouts, rewritten from W after every update.
  fast_training::conv_tiled_weights(s, weight_.value, tiled_weights_.data(), stream_);
  fast_training::conv2d_forward_tiled(s, x, tiled_weights_.data(), bias_.value, output(), stream_);
}

void FastConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  fast_training::conv2d_backward_weight_tiled(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  if (input_grad_) fast_training::conv2d_backward_data_tiled(s, tiled_weights_.data(), dy, input_grad(), stream_);
}

// ---- conv as implicit GEMMs --------------------------------------------------------------------------
ImplicitConvLayer::ImplicitConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                                     mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad,
                                     fast_training::GemmMath math)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad), math_(math) {
  if (plan.spec.kind != LayerKind::conv || (input_grad && plan.spec.stride != 1))
    throw course::Error("ImplicitConvLayer: lesson 09's implicit GEMMs do not run '" +
                        host_training::layer_text(plan.spec) + "' (the input gradient needs stride 1)");
  workspace_ = course::DeviceBuffer<float>(
      largest_workspace(max_batch, [&](int b) { return fast_training::conv_implicit_workspace_floats(shape(b)); }));
}

host_layers::ConvShape ImplicitConvLayer::shape(int batch) const { return host_training::conv_shape_of(plan_, batch); }

void ImplicitConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  fast_training::conv2d_forward_implicit(shape(batch), x, weight_.value, bias_.value, output(), stream_, math_);
}

void ImplicitConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  fast_training::conv2d_backward_weight_implicit(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream, math_);
  if (input_grad_)
    fast_training::conv2d_backward_data_implicit(s, weight_.value, dy, input_grad(), workspace_.data(), stream_,
                                                 math_);
}

// ---- conv on other kernels (lesson 10's) ---------------------------------------------------------------
OtherConvLayer::OtherConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                               mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad,
                               std::shared_ptr<const fast_training::ConvKernels> kernels, fast_training::GemmMath math)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad),
      kernels_(std::move(kernels)), math_(math) {
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

void OtherConvLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  kernels_->forward(shape(batch), x, weight_.value, bias_.value, own_weights_.data(), output(), stream_);
}

void OtherConvLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const host_layers::ConvShape s = shape(batch);
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  if (their_dw_)
    kernels_->backward_weight(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  else if (tiled_dw_)
    fast_training::conv2d_backward_weight_tiled(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream);
  else
    fast_training::conv2d_backward_weight_implicit(s, x, dy, weight_.grad, bias_.grad, t.workspace, t.stream, math_);
  // The input gradient from the weights the last forward wrote in their own layout.
  if (input_grad_) kernels_->backward_data(s, weight_.value, own_weights_.data(), dy, input_grad(), stream_);
}

// ---- dense (and whole-input conv) on the fused products -------------------------------------------------
FastDenseLayer::FastDenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch,
                               mnist_gpu::ParamView weight, mnist_gpu::ParamView bias, bool input_grad,
                               fast_training::GemmMath math)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), weight_(weight), bias_(bias), input_grad_(input_grad), math_(math) {
  if (plan.spec.kind != LayerKind::dense && !conv_is_dense(plan))
    throw course::Error("FastDenseLayer: '" + host_training::layer_text(plan.spec) + "' is not a dense product");
  workspace_ = course::DeviceBuffer<float>(largest_workspace(max_batch, [&](int b) {
    return fast_training::dense_fused_workspace_floats(b, int(plan.in_size()), plan.out_c);
  }));
}

void FastDenseLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  fast_training::dense_forward_fused(x, weight_.value, bias_.value, output(), batch, int(in_size()), plan_.out_c,
                                     false, workspace_.data(), stream_, math_);
}

void FastDenseLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const int in = int(in_size()), out = plan_.out_c;
  const WeightGradientAside::Target t = aside_.target(stream_, workspace_.data(), input_grad_);
  fast_training::dense_backward_weight_fused(x, dy, weight_.grad, bias_.grad, batch, in, out, t.workspace, t.stream,
                                             math_);
  if (input_grad_)
    fast_training::dense_backward_data_fused(weight_.value, dy, nullptr, input_grad(), batch, in, out,
                                             workspace_.data(), stream_, math_);
}

// ---- the thin first conv, its relu and pool in one kernel (lesson 09's 09.13) ------------------------------
template <class Conv>
void ThinConvLayer<Conv>::allocate_workspace() {
  thin_workspace_ = course::DeviceBuffer<float>(largest_workspace(
      this->max_batch(), [&](int b) { return fast_training::thin_conv_dw_workspace_floats(this->shape(b)); }));
}

template <class Conv>
void ThinConvLayer<Conv>::forward(const float* x, int batch) {
  if (!thin_->fused()) return Conv::forward(x, batch);
  this->check_batch(batch, "forward");
  // The pool's output and argmax, written here; the relu's and the pool's own passes do nothing.
  fast_training::thin_conv_relu_maxpool(this->shape(batch), thin_->pool->shape(batch), x, this->weight_.value,
                                        this->bias_.value, thin_->pool->output(), thin_->pool->argmax(),
                                        this->stream_);
}

template <class Conv>
void ThinConvLayer<Conv>::backward(const float* x, const float* dy, int batch) {
  if (!thin_->fused()) return Conv::backward(x, dy, batch);
  this->check_batch(batch, "backward");
  if (!thin_->d_pooled) throw course::Error(this->name() + ": the pool's backward did not run before the conv's");
  fast_training::thin_conv_backward_weight(this->shape(batch), thin_->pool->shape(batch), x, thin_->pool->argmax(),
                                           thin_->d_pooled, this->weight_.grad, this->bias_.grad,
                                           thin_workspace_.data(), this->stream_);
}

template class ThinConvLayer<ImplicitConvLayer>;
template class ThinConvLayer<OtherConvLayer>;

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

void ReluPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  if (thin_ && thin_->fused()) return;  // the thin conv before it wrote the output and the argmax
  // Folded: the relu's input, not its (unwritten) output; max(relu(a), relu(b)) = relu(max(a, b)).
  const float* in = folded_ ? folded_->input() : x;
  fast_training::relu_maxpool_forward(shape(batch), in, output(), argmax_.data(), stream_);
}

void ReluPoolLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  if (thin_ && thin_->fused()) {  // the thin conv reads dy and the argmax itself
    thin_->d_pooled = dy;
    return;
  }
  // Folded: the argmax already carries the relu's mask, so this is dL/d(the relu's input).
  float* dx = folded_ ? folded_->input_grad() : input_grad();
  fast_training::relu_maxpool_backward(shape(batch), argmax_.data(), dy, dx, stream_);
}

void FoldedReluLayer::forward(const float* x, int batch) {
  input_ = x;
  if (training_)
    check_batch(batch, "forward");  // the pool does the work
  else
    ReluPoolLayer::forward(x, batch);
}

void FoldedReluLayer::backward(const float*, const float*, int batch) {
  check_batch(batch, "backward");  // the pool after it wrote input_grad()
}

// ---- the loss ------------------------------------------------------------------------------------------
void FusedSoftmaxCrossEntropy::forward(const float* logits, const int* labels, int batch) {
  check_batch(batch, "forward");
  fast_training::softmax_cross_entropy_fused(logits, labels, row_loss_.data(), dlogits_.data(), batch, classes_,
                                             stream_);
}

void FusedSoftmaxCrossEntropy::backward(const int*, int batch) { check_batch(batch, "backward"); }

}  // namespace beyond_mnist
