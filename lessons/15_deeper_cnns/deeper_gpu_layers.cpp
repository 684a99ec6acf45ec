// Lesson 15 (given): the GPU layers of deeper networks and their maker (deeper_gpu_layers.hpp).
#include "deeper_gpu_layers.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "beyond_gpu_layers.hpp"  // lesson 12's ActivationLayer, DropoutLayer
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "deeper_host_network.hpp"  // kBatchNormEps, kBatchNormMomentum
#include "layer_kernels.hpp"        // lesson 12's choose_kernels
#include "layer_shapes.hpp"

namespace deeper_cnns {

using host_training::LayerKind;
using host_training::LayerPlan;

// ---- batch norm ------------------------------------------------------------------------------------------
BatchNormLayer::BatchNormLayer(std::string name, const LayerPlan& plan, int max_batch, mnist_gpu::ParamView gamma,
                               mnist_gpu::ParamView beta)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), gamma_(gamma), beta_(beta) {
  if (plan.spec.kind != LayerKind::batch_norm)
    throw course::Error("BatchNormLayer: '" + host_training::layer_text(plan.spec) + "' is not a batch norm");
  const size_t C = size_t(plan.out_c);
  std::vector<float> start(4 * C, 0.0f);
  std::fill(start.begin() + 3 * C, start.end(), 1.0f);  // running variance 1
  stats_ = course::DeviceBuffer<float>(4 * C);
  workspace_ = course::DeviceBuffer<float>(batch_norm_wide_workspace_floats(shape(max_batch)));
  CUDA_CHECK(cudaMemcpy(stats_.data(), start.data(), start.size() * sizeof(float), cudaMemcpyHostToDevice));
}

void BatchNormLayer::forward(const float* x, int batch) {
  const float* skip = training_ ? skip_ : nullptr;
  skip_ = nullptr;  // one pass only, even one that throws: the block sets it again before the next
  check_batch(batch, "forward");
  const int C = plan_.out_c;
  float* y = skip ? block_out_ : relu_ ? relu_->output() : out_.data();
  const bool relu = skip ? block_relu_ : relu_ != nullptr;
  if (training_ && synced_)
    synced_->forward(shape(batch), x, gamma_.value, beta_.value, kBatchNormEps, kBatchNormMomentum, skip, relu, y,
                     stats_.data(), stats_.data() + C, stats_.data() + 2 * C, stats_.data() + 3 * C,
                     workspace_.data(), stream_);
  else if (training_ && conv_entries(batch) > 0) {
    check_batch_norm(name_.c_str(), shape(batch), kBatchNormEps, kBatchNormMomentum, true);
    batch_norm_normalize_gpu(shape(batch), x, gamma_.value, beta_.value, workspace_.data(), conv_entries(batch),
                             kBatchNormEps, kBatchNormMomentum, stats_.data(), stats_.data() + C,
                             stats_.data() + 2 * C, stats_.data() + 3 * C, skip, relu, y, stream_);
  } else if (training_)
    batch_norm_forward_train_wide_gpu(shape(batch), x, gamma_.value, beta_.value, kBatchNormEps, kBatchNormMomentum,
                                      skip, relu, y, stats_.data(), stats_.data() + C, stats_.data() + 2 * C,
                                      stats_.data() + 3 * C, workspace_.data(), stream_);
  else
    batch_norm_forward_eval_gpu(shape(batch), x, gamma_.value, beta_.value, running_mean(), running_var(),
                                kBatchNormEps, relu_ != nullptr, y, stream_);
}

void BatchNormLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  const int C = plan_.out_c;
  if (relu_ && !relu_dy_) throw course::Error(name_ + " backward: its ReLU's backward pass did not run first");
  const float* g = relu_ ? relu_dy_ : dy;
  const float* relu_y = relu_ ? relu_->output() : nullptr;
  if (synced_)
    synced_->backward(shape(batch), x, g, relu_y, gamma_.value, stats_.data(), stats_.data() + C, din_.data(),
                      gamma_.grad, beta_.grad, workspace_.data(), stream_);
  else
    batch_norm_backward_wide_gpu(shape(batch), x, g, relu_y, gamma_.value, stats_.data(), stats_.data() + C,
                                 din_.data(), gamma_.grad, beta_.grad, workspace_.data(), stream_);
}

bool BatchNormLayer::end_block(const float* skip, float* out, bool relu) {
  if (!training_ || relu_ || !skip || !out) return false;
  skip_ = skip, block_out_ = out, block_relu_ = relu;
  return true;
}

void BatchNormLayer::synchronize_over(const framework::Rank& rank) {
  if (conv_statistics_) throw course::Error(name_ + ": its statistics come from the conv before it, not synchronized ones");
  synced_ = std::make_unique<SyncedStatistics>(rank, shape(max_batch_));
}

void BatchNormLayer::take_statistics_from(std::function<void(float*)> point_to, int entries_per_image) {
  if (synced_) throw course::Error(name_ + ": synchronized statistics cannot come from the conv before it");
  if (!point_to || entries_per_image < 1) throw course::Error(name_ + ": the conv before it writes no statistics");
  conv_statistics_ = std::move(point_to), conv_entries_per_image_ = entries_per_image;
  const size_t floats = 3 * size_t(plan_.out_c) * size_t(conv_entries(max_batch_));
  if (floats > workspace_.size()) workspace_ = course::DeviceBuffer<float>(floats);
  conv_statistics_(training_ ? workspace_.data() : nullptr);
}

void BatchNormLayer::set_training(bool training) {
  training_ = training;
  if (conv_statistics_) conv_statistics_(training ? workspace_.data() : nullptr);  // evaluation needs none
}

// ---- ReLU ----------------------------------------------------------------------------------------------------
ReluLayer::ReluLayer(std::string name, const LayerPlan& plan, int max_batch)
    : mnist_gpu::Layer(std::move(name), plan, max_batch) {
  if (plan.spec.kind != LayerKind::relu)
    throw course::Error("ReluLayer: '" + host_training::layer_text(plan.spec) + "' is not a relu");
}

void ReluLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  if (!fed_) relu_forward_gpu(x, out_.data(), size_t(batch) * out_size(), stream_);
}

void ReluLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  if (masked_by_next_) return;  // the block after it wrote input_grad() already
  if (norm_)
    norm_->take_relu_gradient(dy);  // the norm's backward masks dy with this layer's output
  else
    relu_backward_gpu(out_.data(), dy, din_.data(), size_t(batch) * in_size(), stream_);
}

// ---- global average pooling ------------------------------------------------------------------------------
GlobalAvgPoolLayer::GlobalAvgPoolLayer(std::string name, const LayerPlan& plan, int max_batch)
    : mnist_gpu::Layer(std::move(name), plan, max_batch) {
  if (plan.spec.kind != LayerKind::global_avg_pool)
    throw course::Error("GlobalAvgPoolLayer: '" + host_training::layer_text(plan.spec) + "' is not globalavg");
}

void GlobalAvgPoolLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  global_avg_pool_forward_gpu(x, out_.data(), batch, plan_.in_c, plan_.in_h * plan_.in_w, stream_);
}

void GlobalAvgPoolLayer::backward(const float*, const float* dy, int batch) {
  check_batch(batch, "backward");
  global_avg_pool_backward_gpu(dy, din_.data(), batch, plan_.in_c, plan_.in_h * plan_.in_w, stream_);
}

// ---- strided convolution ---------------------------------------------------------------------------------
StridedConvLayer::StridedConvLayer(std::string name, const LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                                   mnist_gpu::ParamView bias, const fast_training::GemmProducts* products,
                                   std::shared_ptr<const tensor_cores::TensorCoreConvs> dx_kernels)
    : ImplicitConvLayer(std::move(name), plan, max_batch, weight, bias, false, products) {
  const host_layers::ConvShape unit = unit_stride(max_batch);
  spread_ = course::DeviceBuffer<float>(size_t(max_batch) * unit.out_channels * unit.out_h() * unit.out_w());
  if (dx_kernels && dx_kernels->runs(unit)) {
    dx_kernels_ = std::move(dx_kernels);
    dx_weights_ = course::DeviceBuffer<unsigned char>(dx_kernels_->weights_bytes(unit));
  } else {
    data_workspace_ = course::DeviceBuffer<float>(fast_training::conv_implicit_workspace_floats(unit));
  }
}

void StridedConvLayer::backward(const float* x, const float* dy, int batch) {
  ImplicitConvLayer::backward(x, dy, batch);  // dW and dbias (constructed without the input gradient)
  const host_layers::ConvShape unit = unit_stride(batch);
  spread_by_stride_gpu(dy, spread_.data(), batch * plan_.out_c, plan_.out_h, plan_.out_w, unit.out_h(), unit.out_w(),
                       plan_.spec.stride, stream_);
  if (dx_kernels_) {
    dx_kernels_->write_own_weights(unit, weight_.value, dx_weights_.data(), stream_);
    dx_kernels_->backward_data(unit, weight_.value, dx_weights_.data(), spread_.data(), din_.data(), stream_);
    return;
  }
  fast_training::conv2d_backward_data_implicit(unit, weight_.value, spread_.data(), din_.data(), data_workspace_.data(),
                                               stream_);
}

// ---- res blocks --------------------------------------------------------------------------------------------
ResidualLayer::ResidualLayer(std::string name, const LayerPlan& plan, int max_batch, Layers body, Layers shortcut,
                             bool input_grad)
    : mnist_gpu::Layer(std::move(name), plan, max_batch), body_(std::move(body)), shortcut_(std::move(shortcut)),
      input_grad_(input_grad) {
  if (plan.spec.kind != LayerKind::residual || body_.size() != plan.body.size() ||
      shortcut_.size() != plan.shortcut.size())
    throw course::Error("ResidualLayer: '" + host_training::layer_text(plan.spec) +
                        "' needs one layer for every layer of its body and shortcut");
}

namespace {

template <class F>
void each_layer(const ResidualLayer::Layers& a, const ResidualLayer::Layers& b, F f) {
  for (const auto& layer : a) f(*layer);
  for (const auto& layer : b) f(*layer);
}

}  // namespace

void ResidualLayer::forward(const float* x, int batch) {
  check_batch(batch, "forward");
  float* y = relu_ ? relu_->output() : out_.data();
  const float* skip = framework::chain_forward(shortcut_, x, batch);  // first: the body's last norm may add it
  auto* last = body_.empty() ? nullptr : dynamic_cast<BatchNormLayer*>(body_.back().get());
  const bool norm_adds = last && last->end_block(skip, y, relu_ != nullptr);  // false in evaluation
  const float* main = framework::chain_forward(body_, x, batch);
  if (!norm_adds) add_gpu(main, skip, y, size_t(batch) * out_size(), relu_ != nullptr, stream_);
}

void ResidualLayer::backward(const float* x, const float* dy, int batch) {
  check_batch(batch, "backward");
  // x fed both paths: its gradient is what comes back along each, added.
  const float* through_body = framework::chain_backward(body_, x, dy, batch);
  const float* through_skip = framework::chain_backward(shortcut_, x, dy, batch);
  const size_t n = size_t(batch) * in_size();
  if (before_)  // x is that ReLU's output: its backward rides in this add
    add_masked_gpu(through_body, through_skip, x, before_->input_grad(), n, stream_);
  else if (input_grad_)
    add_gpu(through_body, through_skip, din_.data(), n, false, stream_);
}

void ResidualLayer::mask_input_gradient(ReluLayer* before) {
  if (!before || !before->input_grad() || !input_grad_)
    throw course::Error(name_ + ": no ReLU input gradient to write, or the block writes none");
  before_ = before;
  before_->masked_by_next_block();
  din_ = course::DeviceBuffer<float>();
}

void ResidualLayer::set_training(bool training) {
  each_layer(body_, shortcut_, [&](mnist_gpu::Layer& l) { l.set_training(training); });
}

void ResidualLayer::set_stream(cudaStream_t stream) {
  mnist_gpu::Layer::set_stream(stream);
  each_layer(body_, shortcut_, [&](mnist_gpu::Layer& l) { l.set_stream(stream); });
}

void ResidualLayer::use_branch(fast_training::Branch* branch) {
  each_layer(body_, shortcut_, [&](mnist_gpu::Layer& l) {
    if (auto* branching = dynamic_cast<beyond_mnist::BranchingLayer*>(&l)) branching->use_branch(branch);
  });
}

std::vector<std::pair<float*, size_t>> ResidualLayer::buffers() {
  std::vector<std::pair<float*, size_t>> all;
  each_layer(body_, shortcut_, [&](mnist_gpu::Layer& l) {
    for (const auto& b : l.buffers()) all.push_back(b);
  });
  return all;
}

std::string ResidualLayer::kernels() const {
  const bool norm_adds = !body_.empty() && dynamic_cast<const BatchNormLayer*>(body_.back().get());
  return std::string("a block of ") + std::to_string(body_.size() + shortcut_.size()) + " layers" +
         (shortcut_.empty() ? "" : ", a projection shortcut") +
         (norm_adds ? ", the add in its last batch norm's pass while training" : "");
}

size_t ResidualLayer::own_bytes() const {
  size_t bytes = 0;
  each_layer(body_, shortcut_, [&](const mnist_gpu::Layer& l) {
    bytes += l.buffer_bytes() + l.own_bytes();
  });
  return bytes;
}

bool ResidualLayer::runs_on_stream() const {
  bool all = true;
  each_layer(body_, shortcut_, [&](const mnist_gpu::Layer& l) { all = all && l.runs_on_stream(); });
  return all;
}

// ---- the makers and the passes -----------------------------------------------------------------------------------
namespace {

// f(list) for `layers` and, inside every res block, its body and shortcut (blocks inside them too).
void each_list(const std::vector<std::unique_ptr<mnist_gpu::Layer>>& layers,
               const std::function<void(const std::vector<std::unique_ptr<mnist_gpu::Layer>>&)>& f) {
  f(layers);
  for (const auto& layer : layers)
    if (const auto* block = dynamic_cast<const ResidualLayer*>(layer.get())) {
      each_list(block->body(), f);
      each_list(block->shortcut(), f);
    }
}

// Where the conv before a batch norm can write the norm's statistics, and how many entries an image.
struct ConvStatistics {
  std::function<void(float*)> point_to;
  int per_image = 0;
};
ConvStatistics statistics_of(mnist_gpu::Layer* conv) {
  // Lesson 10's Tensor Core kernels: the conv gets its own copy of them, whose statistics' address is
  // this norm's alone (every conv of the network shares the maker's).
  if (auto* other = dynamic_cast<beyond_mnist::OtherConvLayer*>(conv)) {
    const auto* shared = dynamic_cast<const tensor_cores::TensorCoreConvs*>(other->conv_kernels().get());
    const int per_image = shared ? shared->statistics_entries(host_training::conv_shape_of(conv->plan(), 1)) : 0;
    if (per_image == 0) return {};
    auto own = std::make_shared<tensor_cores::TensorCoreConvs>(*shared);
    other->use_kernels(own);
    return {[own](float* at) { own->write_statistics_to(at); }, per_image};
  }
  // Else lesson 09's FP32 tiled kernels (09.10's `stats`).
  if (auto* tiled = dynamic_cast<beyond_mnist::FastConvLayer*>(conv))
    return {[tiled](float* at) { tiled->write_statistics_to(at); }, tiled->statistics_entries_per_image()};
  return {};
}

}  // namespace

void fuse_relu_into_norm_or_block(framework::DeviceLayerMakers::Layers& layers) {
  each_list(layers, [](const std::vector<std::unique_ptr<mnist_gpu::Layer>>& list) {
    for (size_t i = 1; i < list.size(); ++i) {
      auto* relu = dynamic_cast<ReluLayer*>(list[i].get());
      if (!relu) continue;
      if (auto* norm = dynamic_cast<BatchNormLayer*>(list[i - 1].get())) {
        norm->fuse(relu);
        relu->fed_by(norm);
      } else if (auto* block = dynamic_cast<ResidualLayer*>(list[i - 1].get())) {
        block->fuse(relu);
        relu->fed_by_block();
      }
    }
  });
}

void mask_gradient_in_block(framework::DeviceLayerMakers::Layers& layers) {
  each_list(layers, [](const std::vector<std::unique_ptr<mnist_gpu::Layer>>& list) {
    for (size_t i = 1; i < list.size(); ++i) {
      auto* block = dynamic_cast<ResidualLayer*>(list[i].get());
      auto* before = dynamic_cast<ReluLayer*>(list[i - 1].get());
      // A ReLU fused into the norm before it hands its dy to the norm: it has no input gradient.
      if (block && before && before->input_grad()) block->mask_input_gradient(before);
    }
  });
}

void statistics_in_conv(framework::DeviceLayerMakers::Layers& layers) {
  each_list(layers, [](const std::vector<std::unique_ptr<mnist_gpu::Layer>>& list) {
    for (size_t i = 1; i < list.size(); ++i) {
      auto* norm = dynamic_cast<BatchNormLayer*>(list[i].get());
      if (!norm || norm->synchronized()) continue;
      const ConvStatistics statistics = statistics_of(list[i - 1].get());
      if (statistics.point_to) norm->take_statistics_from(statistics.point_to, statistics.per_image);
    }
  });
}

std::shared_ptr<const framework::DeviceLayerMakers> deeper_gpu_layers(uint64_t seed, const framework::Rank* synced,
                                                                      const beyond_mnist::OtherKernels& other) {
  using framework::DeviceLayerContext;
  using framework::LayerPlace;
  using Inner = framework::DeviceLayerMakers::Inner;
  const std::shared_ptr<const tensor_cores::TensorCoreConvs> convs =
      std::dynamic_pointer_cast<const tensor_cores::TensorCoreConvs>(other.conv);
  const bool sync = synced != nullptr;
  const framework::Rank rank = sync ? *synced : framework::Rank{};
  // Lesson 12's layers (sigmoid, tanh, dropout, and max-pools lesson 09's kernel does not run).
  beyond_mnist::OtherKernels lesson12 = other;
  lesson12.thin_first = false;  // 09.13's thin first layer is lesson 12's, not these networks'
  auto makers = std::make_shared<framework::DeviceLayerMakers>(
      *beyond_mnist::beyond_gpu_layers(seed, beyond_mnist::GpuLayers::lesson09, lesson12));
  makers->add(LayerKind::batch_norm,
              [sync, rank](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const Inner&) {
                auto norm = std::make_unique<BatchNormLayer>(place.name, p, c.max_batch, c.params(p, 0),
                                                             c.params(p, 1));
                if (sync) norm->synchronize_over(rank);
                return norm;
              });
  makers->add(LayerKind::global_avg_pool,
              [](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const Inner&) {
                return std::make_unique<GlobalAvgPoolLayer>(place.name, p, c.max_batch);
              });
  makers->add(LayerKind::residual,
              [](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place, const Inner& inner) {
                auto body = inner(p.body);  // their places follow the block's: body, then shortcut
                auto shortcut = inner(p.shortcut);
                return std::make_unique<ResidualLayer>(place.name, p, c.max_batch, std::move(body),
                                                       std::move(shortcut), !place.reads_network_input);
              });
  makers->add(LayerKind::relu, [](const LayerPlan& p, const DeviceLayerContext& c, const LayerPlace& place,
                                  const Inner&) { return std::make_unique<ReluLayer>(place.name, p, c.max_batch); });
  // Lesson 12's choice (12.4) for lesson 09's kernels; a strided convolution's input gradient here.
  const framework::DeviceLayerMakers::Make lesson12_conv = makers->maker(LayerKind::conv);
  makers->add(LayerKind::conv, [other, convs, lesson12_conv](const LayerPlan& p, const DeviceLayerContext& c,
                                                            const LayerPlace& place, const Inner& inner)
                                   -> std::unique_ptr<mnist_gpu::Layer> {
    const bool input_grad = !place.reads_network_input;
    const auto kernels = beyond_mnist::choose_kernels(*place.list, place.index, beyond_mnist::GpuLayers::lesson09);
    if ((kernels == beyond_mnist::LayerKernels::implicit_conv && input_grad && p.spec.stride != 1) ||
        kernels == beyond_mnist::LayerKernels::lesson08)
      return std::make_unique<StridedConvLayer>(place.name, p, c.max_batch, c.params(p, 0), c.params(p, 1),
                                                other.products, convs);
    return lesson12_conv(p, c, place, inner);
  });
  makers->add_pass(kFuseReluIntoNormOrBlock, fuse_relu_into_norm_or_block)
      .add_pass(kMaskGradientInBlock, mask_gradient_in_block)
      .add_pass(kStatisticsInConv, statistics_in_conv);
  return makers;
}

std::string stream_problem(const host_training::ModelSpec& spec) {
  std::string problem;
  std::function<void(const std::vector<LayerPlan>&, const std::string&)> scan = [&](const std::vector<LayerPlan>& list,
                                                                                   const std::string& where) {
    for (size_t i = 0; i < list.size() && problem.empty(); ++i) {
      const LayerPlan& p = list[i];
      if (p.spec.kind == LayerKind::maxpool &&
          beyond_mnist::choose_kernels(list, i, beyond_mnist::GpuLayers::lesson09) == beyond_mnist::LayerKernels::lesson08)
        problem = "layer " + where + std::to_string(i + 1) + " '" + host_training::layer_text(p.spec) +
                  "' runs on lesson 08's max-pool (its input can be negative, or its windows overlap)";
      scan(p.body, where + std::to_string(i + 1) + ".");
      scan(p.shortcut, where + std::to_string(i + 1) + ".shortcut.");
    }
  };
  const std::vector<LayerPlan> plans = host_training::plan_layers(spec);
  scan(plans, "");
  return problem;
}

}  // namespace deeper_cnns
