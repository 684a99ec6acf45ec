// Lesson 16 (given): the sine task's network on the CPU (sine_model.hpp).
#include "sine_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "deeper_cnns.hpp"    // 15.4's regression_loss
#include "fast_cpu.hpp"       // 11.6's run_shards and sum_in_order
#include "host_layers.hpp"    // 01.1's dense layer
#include "host_training.hpp"  // 02.2's Adam

namespace recurrent {

namespace {

// Sequences [begin, end) of a set, as a set of their own (time-major as well).
SineSet slice(const SineSet& set, int begin, int end) {
  SineSet part;
  part.count = end - begin, part.steps = set.steps;
  part.offsets.assign(set.offsets.begin() + begin, set.offsets.begin() + end);
  part.inputs.resize(size_t(part.steps) * part.count), part.targets.resize(part.inputs.size());
  for (int t = 0; t < set.steps; ++t)
    for (int b = 0; b < part.count; ++b) {
      part.inputs[size_t(t) * part.count + b] = set.inputs[size_t(t) * set.count + begin + b];
      part.targets[size_t(t) * part.count + b] = set.targets[size_t(t) * set.count + begin + b];
    }
  return part;
}

}  // namespace

SineNetwork::SineNetwork(int hidden, uint64_t seed, int threads) : hidden_(hidden), threads_(threads) {
  if (hidden < 1) throw course::Error("SineNetwork: hidden must be >= 1, got " + std::to_string(hidden));
  if (threads < 1) throw course::Error("SineNetwork: threads must be >= 1, got " + std::to_string(threads));
  const size_t G = 4 * size_t(hidden);
  w_hh_ = G, b_ih_ = w_hh_ + G * hidden, b_hh_ = b_ih_ + G, head_ = b_hh_ + G, head_b_ = head_ + hidden;
  params_.resize(head_b_ + 1);
  course::Rng rng(seed, 160);
  rng.fill_uniform(params_, -1.0f / std::sqrt(float(hidden)), 1.0f / std::sqrt(float(hidden)));
  grad_.assign(params_.size(), 0.0f), m_.assign(params_.size(), 0.0f), v_.assign(params_.size(), 0.0f);
}

LstmParams<float> SineNetwork::lstm() const {
  const float* p = params_.data();
  return {p, p + w_hh_, p + b_ih_, p + b_hh_};
}

void SineNetwork::run(Pass& pass, int batch, int steps, const float* inputs, const float* h0, const float* c0) const {
  const size_t states = size_t(steps) * batch * hidden_;
  pass.h.resize(states), pass.c.resize(states), pass.gates.resize(states * 4), pass.pred.resize(size_t(steps) * batch);
  lstm_forward<float>({batch, steps, 1, hidden_}, lstm(), inputs, h0, c0, pass.h.data(), pass.c.data(),
                      pass.gates.data());
  host_layers::dense_forward<float>(pass.h.data(), head_w(), params_.data() + head_b_, pass.pred.data(),
                                    steps * batch, hidden_, 1);
}

double SineNetwork::shard_loss(const SineSet& shard, int all_rows, float* grad) const {
  Pass pass;
  const std::vector<float> zeros(size_t(shard.count) * hidden_, 0.0f);
  run(pass, shard.count, shard.steps, shard.inputs.data(), zeros.data(), zeros.data());
  const int rows = shard.steps * shard.count;
  std::vector<float> row_loss(static_cast<size_t>(rows)), dpred(static_cast<size_t>(rows));
  const double mean = deeper_cnns::regression_loss<float>(deeper_cnns::RegressionLoss::squared, pass.pred.data(),
                                                          shard.targets.data(), rows, 1, 1.0f, row_loss.data(),
                                                          dpred.data());
  const double share = double(rows) / all_rows;  // this shard's rows' part of the mean over all rows
  if (!grad) return mean * share;
  for (float& d : dpred) d = float(d * share);
  std::vector<float> dh(pass.h.size()), dx(shard.inputs.size()), dh0(zeros.size()), dc0(zeros.size());
  host_layers::dense_backward<float>(pass.h.data(), head_w(), dpred.data(), dh.data(), grad + head_, grad + head_b_,
                                     rows, hidden_, 1);
  lstm_backward<float>({shard.count, shard.steps, 1, hidden_}, lstm(), shard.inputs.data(), zeros.data(),
                       zeros.data(), pass.h.data(), pass.c.data(), pass.gates.data(), dh.data(), nullptr, nullptr,
                       dx.data(), dh0.data(), dc0.data(), {grad, grad + w_hh_, grad + b_ih_, grad + b_hh_});
  return mean * share;
}

double SineNetwork::loss(const SineSet& set, bool learn) {
  const int shards = std::min(kShards, set.count), all_rows = set.steps * set.count;
  std::vector<std::vector<float>> grads(learn ? size_t(shards) : 0, std::vector<float>(params_.size()));
  const double loss = fast_cpu::run_shards(set.count, shards, threads_, [&](int k, int begin, int end) {
    return shard_loss(slice(set, begin, end), all_rows, learn ? grads[size_t(k)].data() : nullptr);
  });
  if (learn) {
    std::vector<const float*> parts;
    for (const auto& g : grads) parts.push_back(g.data());
    fast_cpu::sum_in_order(parts, params_.size(), grad_.data(), threads_);
  }
  return loss;
}

void SineNetwork::update(float lr, int step) {
  host_training::adam_step(params_.data(), grad_.data(), m_.data(), v_.data(), params_.size(), lr, 0.9f, 0.999f,
                           1e-8f, step);
}

std::vector<float> SineNetwork::predict(const SineSet& set, int future, std::vector<float>* one_step_ahead) const {
  Pass pass;
  const std::vector<float> zeros(size_t(set.count) * hidden_, 0.0f);
  run(pass, set.count, set.steps, set.inputs.data(), zeros.data(), zeros.data());
  if (one_step_ahead) *one_step_ahead = pass.pred;
  const size_t last = size_t(set.steps - 1) * set.count;
  std::vector<float> x(pass.pred.begin() + last, pass.pred.end());  // the prediction of each last value
  std::vector<float> h(pass.h.begin() + last * hidden_, pass.h.end()), c(pass.c.begin() + last * hidden_, pass.c.end());
  std::vector<float> generated;
  generated.reserve(size_t(future) * set.count);
  for (int t = 0; t < future; ++t) {
    run(pass, set.count, 1, x.data(), h.data(), c.data());  // one step, fed its own prediction
    x = pass.pred, h = pass.h, c = pass.c;
    generated.insert(generated.end(), x.begin(), x.end());
  }
  return generated;
}

}  // namespace recurrent
