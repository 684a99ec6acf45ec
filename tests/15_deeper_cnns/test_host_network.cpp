// Lesson 15: the host network's res blocks (given code on your 15.1). The network
// "bn,res(conv3x3xFp1sS,bn,relu,conv3x3xFp1,bn),relu" is a batch norm and then ResNet's basic block:
// its loss and every gradient against the two written out in double (residual_reference.hpp) and
// finite differences of that reference's loss. The first batch norm's gradients come through the
// block's input gradient, both of its paths.
#include <cmath>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course_test.hpp"
#include "deeper_host_network.hpp"
#include "residual_reference.hpp"

using namespace residual_test;
using host_training::Parameter;

namespace {

host_training::ModelSpec block_network(const ResidualShape& s) {
  const std::string F = std::to_string(s.out_channels);
  host_training::ModelSpec spec = host_training::model_from_text(
      "bn,res(conv3x3x" + F + "p1s" + std::to_string(s.stride) + ",bn,relu,conv3x3x" + F + "p1,bn),relu");
  spec.in_channels = s.in_channels, spec.height = s.height, spec.width = s.width;
  spec.classes = s.out_channels * s.out_h() * s.out_w();
  return spec;
}

// The first batch norm's gamma and beta, then the block's parameters.
struct NetworkParams {
  Vec gamma0, beta0;
  Params block;
  std::vector<Vec*> all(bool projection) {
    std::vector<Vec*> every = block.all();
    if (!projection) every.resize(6);
    every.insert(every.begin(), {&gamma0, &beta0});
    return every;
  }
};
NetworkParams random_network(const ResidualShape& s, uint64_t seed) {
  return {course::random_doubles(size_t(s.in_channels), seed, 0.5f, 1.5f),
          course::random_doubles(size_t(s.in_channels), seed + 1, -0.5f, 0.5f), random_params(s, seed + 2)};
}
// Where reference tensor t (NetworkParams::all's order) is among the network's parameters: gamma0,
// beta0, then conv weight, [conv bias], gamma, beta a conv.
size_t network_index(size_t t) { return t < 2 ? t : 2 + (t - 2) + (t - 2) / 3 + ((t - 2) % 3 == 0 ? 0 : 1); }

// The network's parameters from the reference's: every conv bias 0 (the block's convolutions have none).
std::vector<Parameter> network_params(const host_training::ModelSpec& spec, const ResidualShape& s, NetworkParams& p) {
  std::vector<Parameter> params = host_training::init_parameters(spec, 1);
  const std::vector<Vec*> every = p.all(s.projection());
  REQUIRE(params.size() == 2 + (every.size() - 2) / 3 * 4);
  for (size_t t = 0; t < every.size(); ++t) {
    Parameter& target = params[network_index(t)];
    REQUIRE(target.value.size() == every[t]->size());
    target.value.assign(every[t]->begin(), every[t]->end());
  }
  for (Parameter& param : params) param.grad.assign(param.value.size(), float(bn_test::kNaN));
  return params;
}

// Mean softmax-cross-entropy of the reference's outputs (batch norm, then the block), each example's
// out_size values its logits.
double reference_loss(const ResidualShape& s, const Vec& x, const NetworkParams& p, const std::vector<int>& labels,
                      Forward* forward = nullptr) {
  const BatchNormShape in{s.batch, s.in_channels, s.height, s.width};
  const Forward f = reference_forward(s, bn_test::reference_train(in, x, p.gamma0, p.beta0, 1e-5).y, p.block);
  const size_t classes = s.out_size() / size_t(s.batch);
  double loss = 0;
  for (int n = 0; n < s.batch; ++n) {
    const double* row = f.y.data() + size_t(n) * classes;
    double top = row[0], sum = 0;
    for (size_t k = 0; k < classes; ++k) top = std::max(top, row[k]);
    for (size_t k = 0; k < classes; ++k) sum += std::exp(row[k] - top);
    loss += std::log(sum) + top - row[labels[size_t(n)]];
  }
  if (forward) *forward = f;
  return loss / s.batch;
}

}  // namespace

TEST_CASE("the host network's res block: its loss and every gradient against the block in double",
          "[15-host_network]") {
  const ResidualShape blocks[] = {{3, 4, 5, 5, 4, 1}, {2, 3, 6, 5, 4, 2}};  // identity; projection, stride 2
  uint64_t seed = 1500;
  for (const ResidualShape& s : blocks) {
    CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.stride);
    COURSE_INPUT_SEED(seed + 1);
    Vec x = course::random_doubles(s.in_size(), ++seed, -1.f, 1.f);
    NetworkParams p = random_network(s, seed += 10);
    const host_training::ModelSpec spec = block_network(s);
    std::vector<int> labels;
    for (int n = 0; n < s.batch; ++n) labels.push_back(int((seed * 7 + 13 * n) % size_t(spec.classes)));

    std::vector<Parameter> params = network_params(spec, s, p);
    deeper_cnns::DeeperHostNetwork net(spec, params, 2);
    const std::vector<float> xf(x.begin(), x.end());
    const float loss = net.forward_backward(xf.data(), labels.data(), s.batch);
    Forward base;
    const double expected = reference_loss(s, x, p, labels, &base);
    INFO("the network's loss " << loss << ", the block's in double " << expected);
    REQUIRE(std::fabs(loss - expected) <= 1e-5 + 1e-5 * std::fabs(expected));

    // Every gradient of the block, by finite differences of the double reference.
    const std::vector<Vec*> block = p.all(s.projection());
    int checked = 0, skipped = 0;
    for (size_t t = 0; t < block.size(); ++t) {
      const std::vector<float>& analytic = net.parameters()[network_index(t)].grad;
      for (size_t k = 0; k < block[t]->size(); ++k) {
        const double keep = (*block[t])[k], h = 1e-6;
        Forward up, down;
        (*block[t])[k] = keep + h;
        const double L_up = reference_loss(s, x, p, labels, &up);
        (*block[t])[k] = keep - h;
        const double L_down = reference_loss(s, x, p, labels, &down);
        (*block[t])[k] = keep;
        if (!same_signs(up.relu1_in, base.relu1_in) || !same_signs(down.relu1_in, base.relu1_in) ||
            !same_signs(up.relu2_in, base.relu2_in) || !same_signs(down.relu2_in, base.relu2_in)) {
          ++skipped;
          continue;
        }
        const double numeric = (L_up - L_down) / (2 * h);
        INFO(net.parameters()[network_index(t)].name << "[" << k << "]: the network " << analytic[k] << ", finite differences " << numeric);
        REQUIRE(std::isfinite(analytic[k]));
        REQUIRE(std::fabs(analytic[k] - numeric) <= 2e-5 + 2e-3 * std::fabs(numeric));
        ++checked;
      }
    }
    INFO(checked << " gradient entries checked, " << skipped << " left out at a ReLU's kink");
    CHECK(skipped * 20 <= checked);
    // A conv bias right before batch norm changes nothing: its gradient is 0.
    for (size_t t = 3; t < params.size(); t += 4) {
      CAPTURE(net.parameters()[t].name);
      for (float g : net.parameters()[t].grad) REQUIRE(std::fabs(g) <= 1e-5f);
    }
  }
}

TEST_CASE("the host network's batch norm: running statistics in training, evaluation by them alone",
          "[15-host_network]") {
  const ResidualShape s{4, 3, 6, 5, 4, 2};
  COURSE_INPUT_SEED(1601);
  const Vec x = course::random_doubles(s.in_size(), 1601, -1.f, 1.f);
  NetworkParams p = random_network(s, 1610);
  const host_training::ModelSpec spec = block_network(s);
  deeper_cnns::DeeperHostNetwork net(spec, network_params(spec, s, p), 1);
  REQUIRE(net.batch_norm_layers() == 4);
  CHECK(net.running_mean(0) == std::vector<float>(3, 0.0f));  // PyTorch's start
  CHECK(net.running_var(0) == std::vector<float>(3, 1.0f));

  const std::vector<float> xf(x.begin(), x.end());
  const std::vector<int> labels{0, 5, 11, 2};
  net.forward_backward(xf.data(), labels.data(), s.batch);
  // The first batch norm sees the input: one step of momentum 0.1 from (0, 1).
  const bn_test::Reference r =
      bn_test::reference_train({s.batch, s.in_channels, s.height, s.width}, x, p.gamma0, p.beta0, 1e-5);
  for (int c = 0; c < s.in_channels; ++c) {
    CAPTURE(c);
    CHECK(std::fabs(net.running_mean(0)[size_t(c)] - 0.1 * r.mean[size_t(c)]) <= 1e-5);
    CHECK(std::fabs(net.running_var(0)[size_t(c)] - (0.9 + 0.1 * r.unbiased_var[size_t(c)])) <= 1e-4);
  }

  // Evaluation normalises by the running statistics alone: an example gives the same logits alone
  // as in a batch, and evaluation moves no statistic.
  const size_t per_example = s.in_size() / size_t(s.batch), classes = size_t(spec.classes);
  std::vector<float> together(classes * size_t(s.batch), float(bn_test::kNaN)), alone(classes, float(bn_test::kNaN));
  const std::vector<float> mean_before = net.running_mean(1);
  net.forward(xf.data(), s.batch, together.data());
  CHECK(net.running_mean(1) == mean_before);
  for (int n = 0; n < s.batch; ++n) {
    CAPTURE(n);
    net.forward(xf.data() + size_t(n) * per_example, 1, alone.data());
    for (size_t k = 0; k < classes; ++k) {
      REQUIRE(std::isfinite(alone[k]));
      REQUIRE(std::fabs(alone[k] - together[size_t(n) * classes + k]) <= 1e-5f);
    }
  }
  // A network without a thread to run on is refused.
  CHECK_THROWS_AS(deeper_cnns::DeeperHostNetwork(spec, network_params(spec, s, p), 0), course::Error);
}
