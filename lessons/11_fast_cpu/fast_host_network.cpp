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

FastHostNetwork::FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                 int threads, BatchSplit split)
    : FastHostNetwork(std::move(spec), std::move(params), threads, framework::basic_layers()) {
  split_ = split;
}

FastHostNetwork::FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params,
                                 int threads, const framework::LayerKinds& accepted)
    : HostNetwork(std::move(spec), std::move(params), accepted), threads_(threads) {
  if (threads < 1) throw course::Error("FastHostNetwork: threads must be >= 1, got " + std::to_string(threads));
}

FastHostNetwork::FastHostNetwork(const FastHostNetwork& owner, bool gradients)
    : HostNetwork(owner, gradients), threads_(1), split_(owner.split_) {}

void FastHostNetwork::extra_forward(size_t layer, int, bool) {
  throw course::Error("FastHostNetwork: layer '" + layer_text(plan_.at(layer).spec) + "' is not one of lesson 02's");
}

void FastHostNetwork::extra_backward(size_t layer, int) {
  throw course::Error("FastHostNetwork: layer '" + layer_text(plan_.at(layer).spec) + "' is not one of lesson 02's");
}

namespace {

// Max-pool of ReLU(x) in one pass, for windows that do not overlap (stride == window): the max of
// ReLU over a window is ReLU of the max, so the window's max is found on x itself and clamped at 0.
// argmax: the first maximum of x in the window (flat index into x), as lesson 01 picks it; where
// that maximum is <= 0 the output is 0 and the backward pass below sends it no gradient.
// 2x2 windows, stride 2, no padding (lesson 02's pool): the max of each pair of input rows first,
// along whole rows (contiguous: vectorised), then of each pair of columns of that. Where the window
// sits is not stored: the backward pass finds the window's first maximum again (pool2_window_first).
bool is_pool2(const host_layers::PoolShape& p) {
  return p.window == 2 && p.stride == 2 && p.height % 2 == 0 && p.width % 2 == 0;
}

void relu_pool2_forward(const host_layers::PoolShape& p, const float* x, float* y) {
  const int OH = p.out_h(), OW = p.out_w(), W = p.width;
  std::vector<float> rows(static_cast<size_t>(W));
  for (int plane = 0; plane < p.batch * p.channels; ++plane) {
    const float* in = x + size_t(plane) * p.height * W;
    float* out = y + size_t(plane) * OH * OW;
    for (int oh = 0; oh < OH; ++oh) {
      const float* r0 = in + size_t(2 * oh) * W;
      const float* r1 = r0 + W;
      for (int w = 0; w < W; ++w) rows[size_t(w)] = r0[w] > r1[w] ? r0[w] : r1[w];
      for (int ow = 0; ow < OW; ++ow) {
        const float top = rows[size_t(2 * ow)] > rows[size_t(2 * ow + 1)] ? rows[size_t(2 * ow)] : rows[size_t(2 * ow + 1)];
        out[size_t(oh) * OW + ow] = top > 0.0f ? top : 0.0f;
      }
    }
  }
}

void relu_pool2_backward(const host_layers::PoolShape& p, const float* x, const float* y, const float* dy,
                         float* dx) {
  const int OH = p.out_h(), OW = p.out_w(), W = p.width;
  for (size_t plane = 0; plane < size_t(p.batch) * p.channels; ++plane)
    for (int oh = 0; oh < OH; ++oh) {
      const size_t o = (plane * OH + size_t(oh)) * OW;
      const size_t at = (plane * p.height + size_t(2 * oh)) * W;
      const float *x0 = x + at, *x1 = x0 + W;
      float *d0 = dx + at, *d1 = d0 + W;
      for (int ow = 0; ow < OW; ++ow) {
        // The window's first input equal to its maximum, in lesson 01's order ((0,0), (0,1), (1,0),
        // (1,1)): the one lesson 01's max-pool picks. Where y > 0 the maximum is y itself (ReLU let
        // it through); elsewhere every input of the window gets 0. Each dx is written once.
        const float top = y[o + ow], g = top > 0.0f ? dy[o + ow] : 0.0f;
        // As 0/1 flags (&, not &&): no branches, so the loop vectorises.
        const int a = x0[2 * ow] == top, b = (1 - a) & (x0[2 * ow + 1] == top);
        const int c = (1 - a) & (1 - b) & (x1[2 * ow] == top), d = (1 - a) & (1 - b) & (1 - c);
        d0[2 * ow] = a ? g : 0.0f;
        d0[2 * ow + 1] = b ? g : 0.0f;
        d1[2 * ow] = c ? g : 0.0f;
        d1[2 * ow + 1] = d ? g : 0.0f;
      }
    }
}

void relu_maxpool_forward(const host_layers::PoolShape& p, const float* x, float* y, int* argmax) {
  const int OH = p.out_h(), OW = p.out_w();
  for (int plane = 0; plane < p.batch * p.channels; ++plane) {
    const size_t base = size_t(plane) * p.height * p.width;
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        size_t best = base + size_t(oh * p.stride) * p.width + size_t(ow) * p.stride;
        float top = x[best];
        for (int kh = 0; kh < p.window; ++kh) {
          const size_t row = base + size_t(oh * p.stride + kh) * p.width + size_t(ow) * p.stride;
          for (int kw = 0; kw < p.window; ++kw) {
            // Selects, not branches: on real activations "is this one larger?" is a coin toss,
            // and a mispredicted branch costs more than the whole comparison.
            const bool larger = x[row + kw] > top;
            top = larger ? x[row + kw] : top;
            best = larger ? row + kw : best;
          }
        }
        const size_t out = (size_t(plane) * OH + oh) * OW + ow;
        y[out] = top > 0.0f ? top : 0.0f;
        argmax[out] = int(best);
      }
  }
}

// dL/dx of ReLU then max-pool: dy goes to the window's chosen input when the output was > 0
// (there ReLU passed its input on); every other input gets 0. One pass instead of lesson 01's
// two (max-pool backward, then ReLU backward over the whole tensor).
void relu_maxpool_backward(const host_layers::PoolShape& p, const float* y, const int* argmax, const float* dy,
                           float* dx) {
  std::fill(dx, dx + p.input_size(), 0.0f);
  const size_t outputs = p.output_size();
  for (size_t o = 0; o < outputs; ++o)
    if (y[o] > 0.0f) dx[argmax[o]] = dy[o];
}

}  // namespace

// Layer i is a ReLU whose output only a max-pool with non-overlapping windows reads: the two run
// as one (relu_maxpool_forward/backward).
bool FastHostNetwork::relu_into_pool(size_t i) const {
  return plan_[i].spec.kind == LayerKind::relu && i + 1 < plan_.size() &&
         plan_[i + 1].spec.kind == LayerKind::maxpool && plan_[i + 1].spec.stride == plan_[i + 1].spec.window;
}

void FastHostNetwork::forward_layers(const FastHostNetwork& weights, int batch, bool training) {
  for (size_t i = 0; i < plan_.size(); ++i) {
    const LayerPlan& p = plan_[i];
    const float* in = acts_[i].data();
    float* out = acts_[i + 1].data();
    switch (p.spec.kind) {
      case LayerKind::conv:
        conv_forward_on_cpu(conv_shape(i, batch), in, weights.weight_of(i), weights.bias_of(i), out, workspace_,
                            threads_);
        break;
      case LayerKind::relu:
        if (relu_into_pool(i)) {  // acts_[i + 1], the ReLU's output, is skipped: nobody reads it
          const host_layers::PoolShape pool = pool_shape(i + 1, batch);
          if (is_pool2(pool))
            relu_pool2_forward(pool, in, acts_[i + 2].data());
          else
            relu_maxpool_forward(pool, in, acts_[i + 2].data(), argmax_[i + 1].data());
          ++i;
          break;
        }
        host_layers::relu_forward(in, out, acts_[i].size());
        break;
      case LayerKind::maxpool:
        host_layers::maxpool_forward(pool_shape(i, batch), in, out, argmax_[i].data());
        break;
      case LayerKind::dense:
        dense_forward(in, weights.weight_of(i), weights.bias_of(i), out, batch, static_cast<int>(p.in_size()), p.out_c,
                      threads_);
        break;
      default:  // a later lesson's layer
        extra_forward(i, batch, training);
    }
  }
}

void FastHostNetwork::forward(const float* x, int batch, float* logits) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  // Inference: each example's logits are computed alone, so shards of any size give the same bits,
  // and as many shards as threads is the fastest cut.
  const int shards = inference_shards(batch, threads_, may_shard());
  if (shards == 1) {
    prepare(batch);
    std::copy(x, x + acts_[0].size(), acts_[0].begin());
    forward_layers(*this, batch, false);
    std::copy(acts_.back().begin(), acts_.back().end(), logits);
    return;
  }
  grow_shards(size_t(shards), false);
  const size_t per_example = plan_.front().in_size(), classes = size_t(spec_.classes);
  run_shards(batch, shards, threads_, [&](int k, int begin, int end) {
    FastHostNetwork& shard = *shards_[size_t(k)];
    shard.prepare(end - begin);
    std::copy(x + begin * per_example, x + end * per_example, shard.acts_[0].begin());
    shard.forward_layers(*this, end - begin, false);
    std::copy(shard.acts_.back().begin(), shard.acts_.back().end(), logits + begin * classes);
    return 0.0;
  });
}

float FastHostNetwork::pass(const FastHostNetwork& weights, const float* x, const int* labels, int batch,
                            int mean_over) {
  prepare(batch);
  std::copy(x, x + acts_[0].size(), acts_[0].begin());
  forward_layers(weights, batch, true);
  const float loss = host_layers::softmax_cross_entropy_forward(acts_.back().data(), labels, probs_.data(), batch,
                                                                spec_.classes);
  host_layers::softmax_cross_entropy_backward(probs_.data(), labels, grads_.back().data(), batch, spec_.classes);
  if (mean_over != batch) {  // a shard: d(mean over all)/d logits = d(mean over the shard) * shard / all
    // Exact where the shard is a power-of-two part of the batch (32 = 2 x 16): no bit changes.
    const float part = float(double(batch) / mean_over);
    for (float& g : grads_.back()) g *= part;
  }
  for (size_t i = plan_.size(); i-- > 0;) {
    const LayerPlan& p = plan_[i];
    const bool input_grad = i > 0;  // the network's input: nobody reads its gradient
    const float* in = acts_[i].data();
    const float* dout = grads_[i + 1].data();
    float* din = grads_[i].data();
    switch (p.spec.kind) {
      case LayerKind::conv:
        conv_backward_on_cpu(conv_shape(i, batch), in, weights.weight_of(i), dout, din, weight_grad_of(i),
                             bias_grad_of(i), workspace_, threads_, input_grad);
        break;
      case LayerKind::relu:
        if (input_grad) host_layers::relu_backward(in, dout, din, acts_[i].size());
        break;
      case LayerKind::maxpool:
        if (i > 0 && relu_into_pool(i - 1)) {  // the ReLU before it ran with it: both gradients at once
          const host_layers::PoolShape pool = pool_shape(i, batch);
          if (i - 1 > 0 && is_pool2(pool))
            relu_pool2_backward(pool, acts_[i - 1].data(), acts_[i + 1].data(), dout, grads_[i - 1].data());
          else if (i - 1 > 0)
            relu_maxpool_backward(pool, acts_[i + 1].data(), argmax_[i].data(), dout, grads_[i - 1].data());
          --i;
          break;
        }
        if (input_grad) host_layers::maxpool_backward(pool_shape(i, batch), argmax_[i].data(), dout, din);
        break;
      case LayerKind::dense:
        dense_backward(in, weights.weight_of(i), dout, din, weight_grad_of(i), bias_grad_of(i), batch,
                       static_cast<int>(p.in_size()), p.out_c, threads_, input_grad);
        break;
      default:
        if (input_grad) extra_backward(i, batch);
    }
  }
  return loss;
}


float FastHostNetwork::forward_backward(const float* x, const int* labels, int batch) {
  if (batch <= 0) throw course::Error("batch must be positive, got " + std::to_string(batch));
  const int shards = training_shards(batch);
  if (shards == 1) return pass(*this, x, labels, batch, batch);
  grow_shards(size_t(shards), true);
  const size_t per_example = plan_.front().in_size(), classes = size_t(spec_.classes);
  probs_.resize(size_t(batch) * classes);
  // Shard 0 writes its gradients straight into this network's: the two trade buffers for the
  // passes (and trade back however they end), so the sum below adds the other shards into them in
  // place, with no copy of shard 0's.
  struct TradedGradients {
    std::vector<host_training::Parameter>& mine;
    std::vector<host_training::Parameter>& shard0;
    void trade() {
      for (size_t t = 0; t < mine.size(); ++t) std::swap(mine[t].grad, shard0[t].grad);
    }
    TradedGradients(std::vector<host_training::Parameter>& a, std::vector<host_training::Parameter>& b)
        : mine(a), shard0(b) {
      trade();
    }
    ~TradedGradients() { trade(); }
  };
  double loss = 0;
  {
    TradedGradients traded(params_, shards_[0]->params_);
    // 11.7: each shard's pass on its own thread; the mean loss is the shards' means weighted by
    // their sizes, added in shard order.
    loss = run_shards(batch, shards, threads_, [&](int k, int begin, int end) {
      FastHostNetwork& shard = *shards_[size_t(k)];
      const float shard_loss = shard.pass(*this, x + begin * per_example, labels + begin, end - begin, batch);
      std::copy(shard.probs_.begin(), shard.probs_.end(), probs_.begin() + begin * classes);
      return double(shard_loss) * (end - begin) / batch;
    });
  }
  // Every gradient: the shards' gradients added in shard order, into shard 0's (now this network's).
  std::vector<const float*> parts(static_cast<size_t>(shards));
  for (size_t t = 0; t < params_.size(); ++t) {
    parts[0] = params_[t].grad.data();
    for (int k = 1; k < shards; ++k) parts[size_t(k)] = shards_[size_t(k)]->params_[t].grad.data();
    sum_in_order(parts, params_[t].grad.size(), params_[t].grad.data(), threads_);
  }
  return float(loss);
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

int FastHostNetwork::training_shards(int batch) const { return training_shards(batch, may_shard()); }

void FastHostNetwork::grow_shards(size_t count, bool gradients) {
  // A shard reads this network's weights: it holds none, and weight gradients only once it trains.
  while (shards_.size() < count) shards_.push_back(std::unique_ptr<FastHostNetwork>(new FastHostNetwork(*this, gradients)));
  if (!gradients) return;
  for (size_t k = 0; k < count; ++k)
    for (size_t t = 0; t < params_.size(); ++t) shards_[k]->params_[t].grad.resize(params_[t].value.size(), 0.0f);
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
    return b == 0 ? 0 : HostNetwork::buffers(plan, classes, b).bytes() + sizeof(float) * largest_conv_workspace(plan, b);
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
