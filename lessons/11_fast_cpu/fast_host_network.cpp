// Lesson 11 (given): the host network on this lesson's layers (fast_host_network.hpp).
#include "fast_host_network.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "course/arithmetic.hpp"
#include "course/error.hpp"
#include "fast_cpu.hpp"
#include "layer_shapes.hpp"

namespace fast_cpu {

using host_training::LayerKind;
using host_training::LayerPlan;

const framework::HostLayerMakers& fast_host_layers() {
  static const framework::HostLayerMakers makers = [] {
    framework::HostLayerMakers m;
    add_fast_host_layers(m).add_pass(kFuseReluIntoPool, fuse_relu_into_pool);
    return m;
  }();
  return makers;
}

FastHostNetwork::FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                 int threads, BatchSplit split)
    : FastHostNetwork(std::move(spec), std::move(params), threads, fast_host_layers(), framework::basic_layers(), 0) {
  split_ = split;
}

FastHostNetwork::FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                 int threads, const framework::HostLayerMakers& makers,
                                 const framework::LayerKinds& accepted, uint64_t seed)
    : HostStack(std::move(spec), std::move(params), accepted, "FastHostNetwork"), threads_(threads), makers_(&makers),
      seed_(seed) {
  if (threads < 1) throw course::Error("FastHostNetwork: threads must be >= 1, got " + std::to_string(threads));
  set_layers(layers_for(threads_, params_, workspace_), std::make_unique<SoftmaxCrossEntropyOnCpu>(spec_.classes));
}

framework::HostLayerMakers::Layers FastHostNetwork::layers_for(int threads, std::vector<host_training::Parameter>& grads,
                                                               std::vector<float>& workspace) {
  framework::HostLayerContext context;
  context.params = &params_;  // the layers read the weights
  context.grads = &grads;
  context.threads = threads;
  context.scratch = &workspace;
  context.seed = seed_;
  return makers_->make(plan_, context);
}

void FastHostNetwork::grow_shards(size_t count, bool gradients) {
  // A shard reads this network's weights: it holds none, and weight gradients only once it trains
  // (shard 0 writes this network's).
  while (shards_.size() < count) {
    auto shard = std::make_unique<Shard>();
    for (const host_training::Parameter& p : params_) shard->grads.push_back({p.name, p.shape, {}, {}});
    const bool first = shards_.empty();
    shard->layers = layers_for(1, first ? params_ : shard->grads, shard->workspace);
    shard->layers.front()->set_input_grad(false);  // nobody reads the input's gradient
    shard->loss = std::make_unique<SoftmaxCrossEntropyOnCpu>(spec_.classes);
    shards_.push_back(std::move(shard));
  }
  if (!gradients) return;
  for (size_t k = 1; k < count; ++k)
    for (size_t t = 0; t < params_.size(); ++t) shards_[k]->grads[t].grad.resize(params_[t].value.size(), 0.0f);
}

void FastHostNetwork::forward(const float* x, int batch, float* logits) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  // Inference: each example's logits are computed alone, so shards of any size give the same bits,
  // and as many shards as threads is the fastest cut.
  const int shards = inference_shards(batch, threads_, may_shard());
  if (shards == 1) return HostStack::forward(x, batch, logits);
  grow_shards(size_t(shards), false);
  const size_t per_example = plan_.front().in_size(), classes = size_t(spec_.classes);
  run_shards(batch, shards, threads_, [&](int k, int begin, int end) {
    const float* out = framework::evaluation_pass(shards_[size_t(k)]->layers, x + begin * per_example, end - begin);
    std::copy(out, out + size_t(end - begin) * classes, logits + begin * classes);
    return 0.0;
  });
}

float FastHostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  const int shards = training_shards(batch, may_shard());
  trained_in_shards_ = shards > 1;
  if (shards == 1) return HostStack::forward_backward(x, labels, batch);
  grow_shards(size_t(shards), true);
  const size_t per_example = plan_.front().in_size(), classes = size_t(spec_.classes);
  shard_probs_.resize(size_t(batch) * classes);
  // 11.7: each shard's pass on its own thread; the mean loss is the shards' means weighted by
  // their sizes, added in shard order.
  const double loss = run_shards(batch, shards, threads_, [&](int k, int begin, int end) {
    Shard& shard = *shards_[size_t(k)];
    const int count = end - begin;
    shard.loss->set_mean_over(batch);
    const float shard_loss =
        framework::training_pass(shard.layers, *shard.loss, x + begin * per_example, labels + begin, count);
    const std::vector<float>& probs = shard.loss->probabilities();
    std::copy(probs.begin(), probs.end(), shard_probs_.begin() + begin * classes);
    return double(shard_loss) * count / batch;
  });
  // Every gradient: the shards' gradients added in shard order, into shard 0's (this network's).
  std::vector<const float*> parts(static_cast<size_t>(shards));
  for (size_t t = 0; t < params_.size(); ++t) {
    parts[0] = params_[t].grad.data();
    for (int k = 1; k < shards; ++k) parts[size_t(k)] = shards_[size_t(k)]->grads[t].grad.data();
    sum_in_order(parts, params_[t].grad.size(), params_[t].grad.data(), threads_);
  }
  return float(loss);
}

const std::vector<float>& FastHostNetwork::probabilities() const {
  return trained_in_shards_ ? shard_probs_ : HostStack::probabilities();
}

void FastHostNetwork::for_ranges(size_t count, const std::function<void(size_t, size_t)>& body) {
  // Blocks of elements (an int counts them), as 11.7's sum splits its elements: a thread's worth of
  // work for every kMinElementsPerThread of them.
  constexpr size_t kBlock = 4096;
  const size_t blocks = course::ceil_div(count, kBlock);
  if (blocks > size_t(1) << 30) {
    body(0, count);
    return;
  }
  parallel_ranges(threads_, int(blocks), double(count / kMinElementsPerThread) * kMinFlopsPerThread,
                  [&](int first, int last) { body(size_t(first) * kBlock, std::min(count, size_t(last) * kBlock)); });
}

bool FastHostNetwork::may_shard(int threads, BatchSplit split, const std::vector<LayerPlan>& plan) {
  return threads > 1 && split == BatchSplit::shards && std::all_of(plan.begin(), plan.end(), [](const LayerPlan& p) {
           return framework::basic_layers().runs(p.spec.kind);
         });
}

bool FastHostNetwork::may_shard() const { return may_shard(threads_, split_, plan_); }

int FastHostNetwork::training_shards(int batch, bool may_shard) {
  return may_shard ? std::clamp(batch / kShardExamples, 1, kMaxShards) : 1;
}

int FastHostNetwork::inference_shards(int batch, int threads, bool may_shard) {
  return may_shard ? std::clamp(batch / kShardExamples, 1, threads) : 1;
}

uint64_t FastHostNetwork::bytes_for(const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch,
                                    int threads, BatchSplit split) {
  const bool shard = may_shard(threads, split, plan);
  // Every batch up to `batch` (an epoch's last one is smaller) and up to `eval_batch` (the test set's
  // last one): the largest this network runs whole, the most shards and the largest shard.
  int whole = 0, shards = 0, shard_batch = 0, training = 0;
  auto visit = [&](int b, int cut) {
    if (cut == 1) whole = std::max(whole, b);
    if (cut > 1) shards = std::max(shards, cut), shard_batch = std::max(shard_batch, course::ceil_div(b, cut));
  };
  for (int b = 1; b <= batch; ++b) {
    const int cut = training_shards(b, shard);
    visit(b, cut);
    if (cut > 1) training = std::max(training, cut);  // shards that train hold weight gradients
  }
  for (int b = 1; b <= eval_batch; ++b) visit(b, inference_shards(b, threads, shard));
  const uint64_t params = framework::parameter_values(plan);
  auto own = [&](int b) {  // a network's training buffers and conv workspace, prepared for b examples
    return b == 0 ? 0 : host_training::HostNetwork::buffers(plan, classes, b).bytes() + sizeof(float) * largest_conv_workspace(plan, b);
  };
  return 2 * sizeof(float) * params + own(whole) + uint64_t(shards) * own(shard_batch) +
         uint64_t(training) * sizeof(float) * params + scratch_bytes_on_cpu(plan, threads);
}

size_t conv_workspace_on_cpu(const host_layers::ConvShape& s) { return conv_is_thin(s) ? 0 : conv_workspace_floats(s); }

size_t largest_conv_workspace(const std::vector<LayerPlan>& plan, int batch) {
  size_t floats = 0;
  for (const LayerPlan* p : framework::all_layers(plan))
    if (p->spec.kind == LayerKind::conv)
      floats = std::max(floats, conv_workspace_on_cpu(host_training::conv_shape_of(*p, batch)));
  return floats;
}

uint64_t scratch_bytes_on_cpu(const std::vector<LayerPlan>& plan, int threads) {
  // 11.2 packs blocks of up to 256 x 256 of B and a panel of A per thread; 11.5's direct
  // convolutions pad one image's channels, keep an output plane's sums in rows of SIMD vectors and
  // dW's partial sums (up to 32 lanes), each on the thread that runs it. Doubled: a margin.
  uint64_t per_thread = 256 * 256 + 256 * 32, weights = 0;
  for (const LayerPlan* p : framework::all_layers(plan)) {
    if (p->spec.kind != LayerKind::conv || !conv_is_thin(host_training::conv_shape_of(*p, 1))) continue;
    const uint64_t rows = uint64_t(p->in_h) + 2 * p->spec.pad + p->spec.kernel,
                   cols = uint64_t(p->in_w) + 2 * p->spec.pad + p->spec.kernel + 32 * uint64_t(p->spec.stride);
    const uint64_t taps = uint64_t(p->in_c) * p->spec.kernel * p->spec.kernel;
    per_thread = std::max(per_thread, uint64_t(p->in_c) * rows * cols + 2 * uint64_t(p->out_h) * (p->out_w + 32));
    weights = std::max(weights, uint64_t(p->out_c) * (taps + 1) * 32);
  }
  // The fused ReLU and 2x2 pool keeps a row too; a row of any layer is far below these.
  return 2 * sizeof(float) * (uint64_t(std::max(threads, 1)) * per_thread + weights);
}

void conv_forward_on_cpu(const host_layers::ConvShape& s, const float* x, const float* w, const float* b, float* y,
                         std::vector<float>& workspace, int threads) {
  if (conv_is_thin(s)) {  // 11.5: few taps per output, a poor GEMM
    conv2d_direct_forward(s, x, w, b, y, threads);
    return;
  }
  host_training::grow_to(workspace, std::max(workspace.size(), conv_workspace_on_cpu(s)));
  conv2d_forward(s, x, w, b, y, workspace.data(), threads);
}

void conv_backward_on_cpu(const host_layers::ConvShape& s, const float* x, const float* w, const float* dy, float* dx,
                          float* dw, float* db, std::vector<float>& workspace, int threads, bool input_grad) {
  if (conv_is_thin(s)) {
    conv2d_direct_backward(s, x, w, dy, dx, dw, db, threads, input_grad);
    return;
  }
  host_training::grow_to(workspace, std::max(workspace.size(), conv_workspace_on_cpu(s)));
  conv2d_backward(s, x, w, dy, dx, dw, db, workspace.data(), threads, input_grad);
}

host_training::NetworkMaker network_maker(int threads) {
  if (threads < 1) throw course::Error("threads must be >= 1, got " + std::to_string(threads));
  return [threads](const host_training::ModelSpec& spec, std::vector<host_training::Parameter> params) {
    return std::make_unique<FastHostNetwork>(spec, std::move(params), threads);
  };
}

host_training::NetworkBytes network_bytes(int threads) {
  return [threads](const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch) {
    return FastHostNetwork::bytes_for(plan, classes, batch, eval_batch, threads);
  };
}

uint64_t layer_list_bytes(const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch,
                          int threads) {
  const uint64_t most = uint64_t(std::max(batch, eval_batch)), train = uint64_t(std::max(batch, 0));
  uint64_t floats = 2 * framework::parameter_values(plan) + 2 * train * uint64_t(classes);  // + probs_, dlogits_
  uint64_t ints = 0;
  for (const LayerPlan* p : framework::all_layers(plan)) {  // what each layer's passes keep
    floats += most * p->out_size() + train * p->in_size();
    if (p->spec.kind == LayerKind::maxpool) ints += most * p->out_size();
    if (p->spec.kind == LayerKind::batch_norm) floats += 4 * uint64_t(p->out_c);
  }
  floats += largest_conv_workspace(plan, int(most));
  return sizeof(float) * floats + sizeof(int) * ints + scratch_bytes_on_cpu(plan, threads);
}

host_training::NetworkBytes layer_list_network_bytes(int threads) {
  return [threads](const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch) {
    return layer_list_bytes(plan, classes, batch, eval_batch, threads);
  };
}

std::string network_description(int threads) {
  return "lesson 11's layers (dense and conv on the blocked, vectorised GEMM; thin convs direct) on " +
         std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") + ", the first layer's dx skipped";
}

}  // namespace fast_cpu
