// The framework's chain (layer.hpp) and its host network (host_layer.hpp's HostStack): every layer
// forward in order and backward from the last, each backward reading its own forward's input and the
// next layer's input gradient; the loss between; training or evaluation; the first layer spared its
// input gradient; and the gradients of a small network against a formula worked out here in double.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "framework/host_layer.hpp"

using framework::HostLayer;
using framework::LayerPlan;

namespace {

// What the probes saw: each pass in the order it ran.
struct Call {
  size_t layer;
  bool backward;
  const float* x;
  const float* dy;  // backward only
  bool training;
  bool input_grad;
};

// A dense layer (y = W x + b) or a ReLU, written plainly, recording every call.
class ProbeLayer : public HostLayer {
 public:
  ProbeLayer(size_t index, const LayerPlan& plan, std::vector<framework::Parameter>& params, std::vector<Call>& calls)
      : HostLayer("probe" + std::to_string(index), plan), index_(index), calls_(calls) {
    if (plan.spec.kind == framework::LayerKind::dense) params_ = std::make_unique<framework::HostParams>(params, plan);
  }
  void set_training(bool training) override { training_ = training; }
  void forward(const float* x, int batch) override {
    calls_.push_back({index_, false, x, nullptr, training_, input_grad_});
    float* y = output_rows(batch);
    const size_t in = in_size(), out = out_size();
    for (int n = 0; n < batch; ++n)
      for (size_t o = 0; o < out; ++o) {
        const float* xn = x + size_t(n) * in;
        if (!params_) {
          y[size_t(n) * out + o] = xn[o] > 0 ? xn[o] : 0.0f;
          continue;
        }
        float sum = params_->value(1)[o];
        for (size_t i = 0; i < in; ++i) sum += params_->value(0)[o * in + i] * xn[i];
        y[size_t(n) * out + o] = sum;
      }
  }
  void backward(const float* x, const float* dy, int batch) override {
    calls_.push_back({index_, true, x, dy, training_, input_grad_});
    float* dx = input_grad_rows(batch);
    const size_t in = in_size(), out = out_size();
    if (!params_) {
      for (size_t k = 0; k < size_t(batch) * in; ++k) dx[k] = x[k] > 0 ? dy[k] : 0.0f;
      return;
    }
    float* dw = params_->grad(0);
    float* db = params_->grad(1);
    for (size_t k = 0; k < out * in; ++k) dw[k] = 0.0f;
    for (size_t o = 0; o < out; ++o) db[o] = 0.0f;
    for (int n = 0; n < batch; ++n)
      for (size_t o = 0; o < out; ++o) {
        const float g = dy[size_t(n) * out + o];
        db[o] += g;
        for (size_t i = 0; i < in; ++i) dw[o * in + i] += g * x[size_t(n) * in + i];
      }
    if (!input_grad_) return;
    for (int n = 0; n < batch; ++n)
      for (size_t i = 0; i < in; ++i) {
        float sum = 0.0f;
        for (size_t o = 0; o < out; ++o) sum += params_->value(0)[o * in + i] * dy[size_t(n) * out + o];
        dx[size_t(n) * in + i] = sum;
      }
  }

 private:
  size_t index_;
  std::vector<Call>& calls_;
  std::unique_ptr<framework::HostParams> params_;
  bool training_ = true;
};

// Mean softmax cross-entropy; tells which logits it was given and where their gradient went.
class ProbeLoss : public framework::HostLoss {
 public:
  ProbeLoss(int classes, const float** seen, const float** gave) : classes_(classes), seen_(seen), gave_(gave) {}
  float forward_backward(const float* logits, const int* labels, int batch) override {
    *seen_ = logits;
    const size_t c = size_t(classes_);
    probs_.assign(size_t(batch) * c, 0.0f), grad_.assign(size_t(batch) * c, 0.0f);
    double loss = 0;
    for (int n = 0; n < batch; ++n) {
      const float* z = logits + size_t(n) * c;
      double most = z[0], sum = 0;
      for (size_t k = 1; k < c; ++k) most = std::max(most, double(z[k]));
      for (size_t k = 0; k < c; ++k) sum += std::exp(z[k] - most);
      for (size_t k = 0; k < c; ++k) {
        const double p = std::exp(z[k] - most) / sum;
        probs_[size_t(n) * c + k] = float(p);
        grad_[size_t(n) * c + k] = float((p - (int(k) == labels[n] ? 1.0 : 0.0)) / batch);
      }
      loss -= std::log(probs_[size_t(n) * c + size_t(labels[n])]);
    }
    *gave_ = grad_.data();
    return float(loss / batch);
  }
  const std::vector<float>& probabilities() const override { return probs_; }
  const float* logits_grad() const override { return grad_.data(); }

 private:
  int classes_;
  const float **seen_, **gave_;
  std::vector<float> probs_, grad_;
};

// dense4 -> relu -> dense3 on 1 x 2 x 3 inputs, its layers the probes above.
class ProbeNetwork : public framework::HostStack {
 public:
  explicit ProbeNetwork(uint64_t seed)
      : HostStack(probe_spec(), framework::init_parameters(probe_spec(), seed), framework::basic_layers(), "ProbeNetwork") {
    std::vector<std::unique_ptr<HostLayer>> layers;
    for (size_t i = 0; i < plan_.size(); ++i) layers.push_back(std::make_unique<ProbeLayer>(i, plan_[i], params_, calls));
    set_layers(std::move(layers), std::make_unique<ProbeLoss>(spec_.classes, &loss_saw, &loss_gave));
  }
  static framework::ModelSpec probe_spec() {
    framework::ModelSpec s;
    s.name = "probe";
    s.in_channels = 1, s.height = 2, s.width = 3, s.classes = 3;
    s.layers = {framework::dense_layer(4), framework::relu_layer(), framework::dense_layer(3)};
    return s;
  }
  // The set_layers refusals, reachable from a test.
  void set(std::vector<std::unique_ptr<HostLayer>> layers, bool loss) {
    set_layers(std::move(layers), loss ? std::make_unique<ProbeLoss>(3, &loss_saw, &loss_gave) : nullptr);
  }
  std::vector<Call> calls;
  const float* loss_saw = nullptr;   // the logits the loss read
  const float* loss_gave = nullptr;  // their gradient, as the loss wrote it
};

std::vector<float> random_values(size_t n, uint64_t seed) {
  course::Rng rng(seed, 3);
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(-1.0f, 1.0f);
  return v;
}

}  // namespace

TEST_CASE("HostStack runs the chain: forward in order, backward from the last on each layer's own input",
          "[host_stack]") {
  ProbeNetwork net(5);
  const int batch = 5;
  const std::vector<float> x = random_values(size_t(batch) * 6, 11);
  const std::vector<int> labels = {0, 2, 1, 2, 0};
  const float loss = net.forward_backward(x.data(), labels.data(), batch);
  REQUIRE(std::isfinite(loss));
  REQUIRE(net.calls.size() == 6);
  const auto& layers = net.layers();
  for (size_t i = 0; i < 3; ++i) {
    const Call& f = net.calls[i];
    const Call& b = net.calls[5 - i];
    CAPTURE(i);
    CHECK((f.layer == i && !f.backward && f.training));
    CHECK((b.layer == i && b.backward && b.training));
    const float* input = i == 0 ? x.data() : layers[i - 1]->output();
    CHECK(f.x == input);
    CHECK(b.x == input);  // backward reads its forward's input again
    CHECK(b.dy == (i == 2 ? net.loss_gave : layers[i + 1]->input_grad()));
    CHECK(b.input_grad == (i != 0));  // nobody reads the first layer's input gradient
  }
  CHECK(net.loss_saw == layers.back()->output());

  // Evaluation: every layer told, forward only, the logits copied out.
  net.calls.clear();
  std::vector<float> logits(size_t(batch) * 3, std::numeric_limits<float>::quiet_NaN());
  net.forward(x.data(), batch, logits.data());
  REQUIRE(net.calls.size() == 3);
  for (const Call& c : net.calls) CHECK((!c.backward && !c.training));
  for (size_t k = 0; k < logits.size(); ++k) CHECK(logits[k] == layers.back()->output()[k]);
}

TEST_CASE("HostStack's gradients are those of the chain rule, worked out here in double", "[host_stack]") {
  ProbeNetwork net(9);
  const int batch = 7;
  const std::vector<float> x = random_values(size_t(batch) * 6, 13);
  const std::vector<int> labels = {2, 0, 1, 1, 2, 0, 2};
  const float loss = net.forward_backward(x.data(), labels.data(), batch);

  // The same network by hand: h = relu(W1 x + b1), z = W2 h + b2, mean cross-entropy.
  const auto& p = net.parameters();
  const std::vector<float>&W1 = p[0].value, &b1 = p[1].value, &W2 = p[2].value, &b2 = p[3].value;
  std::vector<double> dW1(24, 0), db1(4, 0), dW2(12, 0), db2(3, 0);
  double expected_loss = 0;
  for (int n = 0; n < batch; ++n) {
    const float* xn = x.data() + size_t(n) * 6;
    double pre[4], h[4], z[3], most = -1e300, sum = 0;
    for (int j = 0; j < 4; ++j) {
      pre[j] = b1[size_t(j)];
      for (int i = 0; i < 6; ++i) pre[j] += double(W1[size_t(j * 6 + i)]) * xn[i];
      h[j] = pre[j] > 0 ? pre[j] : 0;
    }
    for (int k = 0; k < 3; ++k) {
      z[k] = b2[size_t(k)];
      for (int j = 0; j < 4; ++j) z[k] += double(W2[size_t(k * 4 + j)]) * h[j];
      most = std::max(most, z[k]);
    }
    for (double v : z) sum += std::exp(v - most);
    double dz[3], dh[4] = {0, 0, 0, 0};
    for (int k = 0; k < 3; ++k) {
      const double prob = std::exp(z[k] - most) / sum;
      if (k == labels[size_t(n)]) expected_loss -= std::log(prob) / batch;
      dz[k] = (prob - (k == labels[size_t(n)] ? 1 : 0)) / batch;
      db2[size_t(k)] += dz[k];
      for (int j = 0; j < 4; ++j) {
        dW2[size_t(k * 4 + j)] += dz[k] * h[j];
        dh[j] += double(W2[size_t(k * 4 + j)]) * dz[k];
      }
    }
    for (int j = 0; j < 4; ++j) {
      const double dpre = pre[j] > 0 ? dh[j] : 0;
      db1[size_t(j)] += dpre;
      for (int i = 0; i < 6; ++i) dW1[size_t(j * 6 + i)] += dpre * xn[i];
    }
  }
  CHECK(loss == Approx(expected_loss).epsilon(1e-5));
  const std::vector<std::vector<double>*> expected = {&dW1, &db1, &dW2, &db2};
  for (size_t t = 0; t < 4; ++t)
    for (size_t k = 0; k < expected[t]->size(); ++k) {
      CAPTURE(p[t].name, k);
      CHECK(p[t].grad[k] == Approx((*expected[t])[k]).margin(1e-6).epsilon(1e-4));
    }
}

TEST_CASE("HostStack refuses layers that are not its plan's, a missing loss and a batch below 1", "[host_stack]") {
  ProbeNetwork net(1);
  std::vector<Call> calls;
  std::vector<framework::Parameter> params = net.parameters();
  auto layers_for = [&](std::vector<size_t> which) {
    std::vector<std::unique_ptr<HostLayer>> layers;
    for (size_t i : which) layers.push_back(std::make_unique<ProbeLayer>(i, net.plan()[i], params, calls));
    return layers;
  };
  CHECK_THROWS_AS(net.set(layers_for({0, 1}), true), course::Error);        // one short
  CHECK_THROWS_AS(net.set(layers_for({0, 0, 2}), true), course::Error);     // a dense where the relu is
  CHECK_THROWS_AS(net.set(layers_for({0, 1, 2}), false), course::Error);    // no loss
  const std::vector<float> x(6, 0.5f);
  const int label = 1;
  CHECK_THROWS_AS(net.forward_backward(x.data(), &label, 0), course::Error);
  std::vector<float> logits(3);
  CHECK_THROWS_AS(net.forward(x.data(), -1, logits.data()), course::Error);
  CHECK(std::isfinite(net.forward_backward(x.data(), &label, 1)));  // the refusals changed nothing
}

TEST_CASE("HostLayerMakers: a layer for each registered kind, blocks' inner layers in all_layers' order",
          "[host_stack]") {
  framework::ModelSpec spec = ProbeNetwork::probe_spec();
  spec.layers = {framework::conv_layer(2, 3, 1),
                 framework::residual_layer({framework::conv_layer(2, 3, 1), framework::relu_layer()}),
                 framework::relu_layer(), framework::dense_layer(3)};
  const std::vector<LayerPlan> plan = framework::plan_layers(spec);
  std::vector<framework::Parameter> params = framework::init_parameters(spec, 2);
  std::vector<Call> calls;
  std::vector<std::pair<std::string, size_t>> made;  // kind and place, in the order they were made
  framework::HostLayerMakers makers;
  std::vector<std::string> names;
  auto probe = [&](const char* what) {
    return [&, what](const LayerPlan& p, const framework::HostLayerContext& c, const framework::LayerPlace& place,
                     const auto& inner) {
      CHECK(&place.plan() == &p);  // the plan in its own list: the neighbours are there
      if (p.spec.kind == framework::LayerKind::residual) {
        inner(p.body);  // made and dropped: only the places they take matter here
        inner(p.shortcut);
      }
      made.emplace_back(what, place.at);
      names.push_back(place.name);
      return std::make_unique<ProbeLayer>(place.at, p, *c.params, calls);
    };
  };
  makers.add(framework::LayerKind::conv, probe("relu"))  // replaced below: the later add wins
      .add(framework::LayerKind::relu, probe("relu"))
      .add(framework::LayerKind::dense, probe("dense"))
      .add(framework::LayerKind::conv, probe("conv"));
  CHECK(makers.makes(framework::LayerKind::conv));
  CHECK_FALSE(makers.makes(framework::LayerKind::residual));
  framework::HostLayerContext context;
  context.params = &params;
  CHECK_THROWS_AS(makers.make(plan, context), course::Error);  // nobody registered res
  makers.add(framework::LayerKind::residual, probe("res"));
  // Passes run once the list is made, in the order added; a later pass of the same name replaces it.
  std::vector<std::string> passes;
  makers.add_pass("first", [&](framework::HostLayerMakers::Layers&) { passes.push_back("dropped"); })
      .add_pass("second", [&](framework::HostLayerMakers::Layers& layers) {
        CHECK(layers.size() == 3);  // after the first pass
        passes.push_back("second");
      })
      .add_pass("first", [&](framework::HostLayerMakers::Layers& layers) {
        layers.pop_back();  // a pass may change the list
        passes.push_back("first");
      });
  CHECK(makers.pass_names() == std::vector<std::string>{"first", "second"});
  made.clear(), names.clear();
  std::vector<framework::HostLayer*> seen;
  const auto layers = makers.make(plan, context, &seen);
  CHECK(passes == std::vector<std::string>{"first", "second"});
  CHECK(layers.size() == 3);
  const std::vector<std::pair<std::string, size_t>> expected = {{"conv", 0}, {"conv", 2}, {"relu", 3},
                                                                {"res", 1},  {"relu", 4}, {"dense", 5}};
  CHECK(made == expected);  // the block and its two inner layers count too
  CHECK(names == std::vector<std::string>{"conv1", "res1.conv1", "res1.relu1", "res1", "relu1", "fc1"});
  CHECK(seen.size() == 6);
}
