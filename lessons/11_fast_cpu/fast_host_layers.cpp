// Lesson 11 (given): this lesson's layers as the framework's host layers (fast_host_layers.hpp).
#include "fast_host_layers.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "fast_cpu.hpp"
#include "fast_host_network.hpp"  // conv_forward_on_cpu, conv_backward_on_cpu
#include "host_layers.hpp"
#include "layer_shapes.hpp"

namespace fast_cpu {

using framework::HostLayer;
using framework::HostLayerContext;
using framework::LayerPlace;
using framework::HostParams;
using framework::LayerKind;
using framework::LayerPlan;

namespace {

class ConvOnCpu : public HostLayer {
 public:
  ConvOnCpu(const LayerPlan& plan, const HostLayerContext& c)
      : HostLayer(layer_text(plan.spec), plan), params_(c.params_of(plan)), threads_(c.threads), workspace_(c.scratch) {}
  void forward(const float* x, int batch) override {
    conv_forward_on_cpu(host_training::conv_shape_of(plan_, batch), x, params_.value(0), params_.value(1),
                        output_rows(batch), *workspace_, threads_);
  }
  void backward(const float* x, const float* dy, int batch) override {
    conv_backward_on_cpu(host_training::conv_shape_of(plan_, batch), x, params_.value(0), dy, input_grad_rows(batch),
                         params_.grad(0), params_.grad(1), *workspace_, threads_, input_grad_);
  }

 private:
  HostParams params_;
  int threads_;
  std::vector<float>* workspace_;
};

class DenseOnCpu : public HostLayer {
 public:
  DenseOnCpu(const LayerPlan& plan, const HostLayerContext& c)
      : HostLayer(layer_text(plan.spec), plan), params_(c.params_of(plan)), threads_(c.threads) {}
  void forward(const float* x, int batch) override {
    dense_forward(x, params_.value(0), params_.value(1), output_rows(batch), batch, int(in_size()), plan_.out_c,
                  threads_);
  }
  void backward(const float* x, const float* dy, int batch) override {
    dense_backward(x, params_.value(0), dy, input_grad_rows(batch), params_.grad(0), params_.grad(1), batch,
                   int(in_size()), plan_.out_c, threads_, input_grad_);
  }

 private:
  HostParams params_;
  int threads_;
};

// Lesson 01's max-pool, remembering which input won for the backward pass.
class MaxPoolOnCpu : public HostLayer {
 public:
  explicit MaxPoolOnCpu(const LayerPlan& plan) : HostLayer(layer_text(plan.spec), plan) {}
  void forward(const float* x, int batch) override {
    float* y = output_rows(batch);
    framework::grow_to(argmax_, out_.size());
    host_layers::maxpool_forward(host_training::pool_shape_of(plan_, batch), x, y, argmax_.data());
  }
  void backward(const float*, const float* dy, int batch) override {
    host_layers::maxpool_backward(host_training::pool_shape_of(plan_, batch), argmax_.data(), dy,
                                  input_grad_rows(batch));
  }

 private:
  std::vector<int> argmax_;
};

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

// rows: a scratch row of p.width values (the layer's, kept from pass to pass).
void relu_pool2_forward(const host_layers::PoolShape& p, const float* x, float* y, std::vector<float>& rows) {
  const int OH = p.out_h(), OW = p.out_w(), W = p.width;
  framework::grow_to(rows, size_t(W));
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


// A ReLU whose max-pool runs it (fuse_relu_into_pool): forward it hands its input on, backward the
// pool's input gradient (already the ReLU's). Whether that gradient is needed is the pool's to know.
class ReluInPool : public HostLayer {
 public:
  ReluInPool(const LayerPlan& plan, HostLayer* pool) : HostLayer(layer_text(plan.spec), plan), pool_(pool) {}
  void forward(const float* x, int) override { x_ = const_cast<float*>(x); }
  void backward(const float*, const float* dy, int) override { dy_ = const_cast<float*>(dy); }
  float* output() override { return x_; }
  float* input_grad() override { return dy_; }
  void set_input_grad(bool needed) override {
    HostLayer::set_input_grad(needed);
    pool_->set_input_grad(needed);
  }

 private:
  HostLayer* pool_;
  float* x_ = nullptr;   // the chain never writes through them: the next layer reads its input,
  float* dy_ = nullptr;  // the one before reads its dy
};

// Max-pool of ReLU(x), forward and backward in one pass each.
class ReluMaxPoolOnCpu : public HostLayer {
 public:
  explicit ReluMaxPoolOnCpu(const LayerPlan& plan) : HostLayer(layer_text(plan.spec), plan) {}
  void forward(const float* x, int batch) override {
    const host_layers::PoolShape pool = host_training::pool_shape_of(plan_, batch);
    float* y = output_rows(batch);
    if (is_pool2(pool)) return relu_pool2_forward(pool, x, y, rows_);
    framework::grow_to(argmax_, out_.size());
    relu_maxpool_forward(pool, x, y, argmax_.data());
  }
  void backward(const float* x, const float* dy, int batch) override {
    if (!input_grad_) return;  // the network's input: nobody reads its gradient
    const host_layers::PoolShape pool = host_training::pool_shape_of(plan_, batch);
    float* dx = input_grad_rows(batch);
    if (is_pool2(pool)) return relu_pool2_backward(pool, x, out_.data(), dy, dx);
    relu_maxpool_backward(pool, out_.data(), argmax_.data(), dy, dx);
  }

 private:
  std::vector<int> argmax_;
  std::vector<float> rows_;  // relu_pool2_forward's row of maxima
};

}  // namespace

framework::HostLayerMakers& add_fast_host_layers(framework::HostLayerMakers& makers) {
  using Reads = framework::ElementwiseHostLayer::BackwardReads;
  return makers
      .add(LayerKind::conv,
           [](const LayerPlan& p, const HostLayerContext& c, const LayerPlace&, const auto&) {
             return std::make_unique<ConvOnCpu>(p, c);
           })
      .add(LayerKind::dense,
           [](const LayerPlan& p, const HostLayerContext& c, const LayerPlace&, const auto&) {
             return std::make_unique<DenseOnCpu>(p, c);
           })
      .add(LayerKind::relu,
           [](const LayerPlan& p, const HostLayerContext&, const LayerPlace&, const auto&) {
             return std::make_unique<framework::ElementwiseHostLayer>(p, host_layers::relu_forward<float>,
                                                              host_layers::relu_backward<float>, Reads::input);
           })
      .add(LayerKind::maxpool, [](const LayerPlan& p, const HostLayerContext&, const LayerPlace&, const auto&) {
        return std::make_unique<MaxPoolOnCpu>(p);
      });
}

bool relu_into_pool(const LayerPlan& relu, const LayerPlan& next) {
  return relu.spec.kind == LayerKind::relu && next.spec.kind == LayerKind::maxpool &&
         next.spec.stride == next.spec.window;
}

void fuse_relu_into_pool(framework::HostLayerMakers::Layers& layers) {
  for (size_t i = 0; i + 1 < layers.size(); ++i) {
    const LayerPlan relu = layers[i]->plan(), pool = layers[i + 1]->plan();
    if (!relu_into_pool(relu, pool)) continue;
    layers[i + 1] = std::make_unique<ReluMaxPoolOnCpu>(pool);
    layers[i] = std::make_unique<ReluInPool>(relu, layers[i + 1].get());
    ++i;
  }
}

float SoftmaxCrossEntropyOnCpu::forward_backward(const float* logits, const int* labels, int batch) {
  const size_t n = size_t(batch) * size_t(classes_);
  probs_.resize(n), dlogits_.resize(n);
  const float loss = host_layers::softmax_cross_entropy_forward(logits, labels, probs_.data(), batch, classes_);
  host_layers::softmax_cross_entropy_backward(probs_.data(), labels, dlogits_.data(), batch, classes_);
  if (mean_over_ > 0 && mean_over_ != batch) {  // d(mean over all)/d logits = d(mean over these) * batch / all
    // Exact where the shard is a power-of-two part of the batch (32 = 2 x 16): no bit changes.
    const float part = float(double(batch) / mean_over_);
    for (float& g : dlogits_) g *= part;
  }
  return loss;
}

}  // namespace fast_cpu
