// Lesson 16 (given): the sine task's network on the CPU (sine_model.hpp).
#include "sine_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "deeper_cnns.hpp"    // 15.4's regression_loss
#include "fast_cpu.hpp"       // 11.7's run_shards and sum_in_order
#include "host_layers.hpp"    // 01.1's dense layer
#include "host_training.hpp"  // 02.1's Adam

namespace recurrent {

SineLayout::SineLayout(int hidden) {
  if (hidden < 1) throw course::Error("sine network: hidden must be >= 1, got " + std::to_string(hidden));
  const size_t G = 4 * size_t(hidden);
  w_hh = G, b_ih = w_hh + G * hidden, b_hh = b_ih + G, head = b_hh + G, head_b = head + hidden, total = head_b + 1;
}

std::vector<float> sine_start_parameters(int hidden, uint64_t seed) {
  std::vector<float> params(SineLayout(hidden).total);
  course::Rng rng(seed, 160);
  rng.fill_uniform(params, -1.0f / std::sqrt(float(hidden)), 1.0f / std::sqrt(float(hidden)));
  return params;
}

SineNetwork::SineNetwork(int hidden, uint64_t seed, int threads) : hidden_(hidden), threads_(threads) {
  if (threads < 1) throw course::Error("SineNetwork: threads must be >= 1, got " + std::to_string(threads));
  const SineLayout at(hidden);
  w_hh_ = at.w_hh, b_ih_ = at.b_ih, b_hh_ = at.b_hh, head_ = at.head, head_b_ = at.head_b;
  params_ = sine_start_parameters(hidden, seed);
  grad_.assign(params_.size(), 0.0f), m_.assign(params_.size(), 0.0f), v_.assign(params_.size(), 0.0f);
}

void SineNetwork::set_parameters(const std::vector<float>& params) {
  if (params.size() != params_.size())
    throw course::Error("SineNetwork::set_parameters: " + std::to_string(params.size()) + " values for " +
                        std::to_string(params_.size()) + " parameters");
  params_ = params;
}

LstmParams<float> SineNetwork::lstm() const {
  const float* p = params_.data();
  return {p, p + w_hh_, p + b_ih_, p + b_hh_};
}

void SineNetwork::run(Pass& pass, int batch, int steps, const float* inputs, const float* h0, const float* c0) const {
  const size_t states = size_t(steps) * batch * hidden_;  // pass_floats counts these
  pass.h.resize(states), pass.c.resize(states), pass.gates.resize(states * 4), pass.pred.resize(size_t(steps) * batch);
  lstm_forward<float>({batch, steps, 1, hidden_}, lstm(), inputs, h0, c0, pass.h.data(), pass.c.data(),
                      pass.gates.data());
  host_layers::dense_forward<float>(pass.h.data(), head_w(), params_.data() + head_b_, pass.pred.data(),
                                    steps * batch, hidden_, 1);
}

double SineNetwork::shard_loss(Shard& shard, int64_t all_rows, bool learn) const {
  const SineSet& set = shard.set;
  shard.zeros.assign(size_t(set.count) * hidden_, 0.0f);
  run(shard.pass, set.count, set.steps, set.inputs.data(), shard.zeros.data(), shard.zeros.data());
  const int rows = set.steps * set.count;
  shard.row_loss.resize(size_t(rows)), shard.dpred.resize(size_t(rows));
  const double mean = deeper_cnns::regression_loss<float>(deeper_cnns::RegressionLoss::squared, shard.pass.pred.data(),
                                                          set.targets.data(), rows, 1, 1.0f, shard.row_loss.data(),
                                                          shard.dpred.data());
  const double share = double(rows) / double(all_rows);  // this shard's rows' part of the mean over all rows
  if (!learn) return mean * share;
  for (float& d : shard.dpred) d = float(d * share);
  const Pass& pass = shard.pass;
  shard.dh.resize(pass.h.size()), shard.dx.resize(set.inputs.size()), shard.grad.resize(params_.size());
  shard.dh0.resize(shard.zeros.size()), shard.dc0.resize(shard.zeros.size());
  float* grad = shard.grad.data();
  host_layers::dense_backward<float>(pass.h.data(), head_w(), shard.dpred.data(), shard.dh.data(), grad + head_,
                                     grad + head_b_, rows, hidden_, 1);
  lstm_backward<float>({set.count, set.steps, 1, hidden_}, lstm(), set.inputs.data(), shard.zeros.data(),
                       shard.zeros.data(), pass.h.data(), pass.c.data(), pass.gates.data(), shard.dh.data(), nullptr,
                       nullptr, shard.dx.data(), shard.dh0.data(), shard.dc0.data(),
                       {grad, grad + w_hh_, grad + b_ih_, grad + b_hh_});
  return mean * share;
}

double SineNetwork::loss(const SineSet& set, bool learn) {
  const int count = std::min(kShards, set.count);
  const int64_t all_rows = int64_t(set.steps) * set.count;
  if (shards_.size() < size_t(count)) shards_.resize(size_t(count));  // never shrunk: the buffers stay
  const double loss = fast_cpu::run_shards(set.count, count, threads_, [&](int k, int begin, int end) {
    Shard& shard = shards_[size_t(k)];
    slice_sequences(set, begin, end, shard.set);
    return shard_loss(shard, all_rows, learn);
  });
  if (learn) {
    std::vector<const float*> parts;
    for (int k = 0; k < count; ++k) parts.push_back(shards_[size_t(k)].grad.data());
    fast_cpu::sum_in_order(parts, params_.size(), grad_.data(), threads_);
  }
  return loss;
}

uint64_t SineNetwork::pass_floats(int64_t batch, int64_t steps, int hidden) {
  const uint64_t rows = uint64_t(batch) * uint64_t(steps);
  return rows * (6 * uint64_t(hidden) + 1);
}

uint64_t SineNetwork::run_bytes(const SineSpec& spec, int hidden, int64_t future, bool cpu_training) {
  const uint64_t H = uint64_t(std::max(hidden, 1)), steps = uint64_t(std::max(spec.length - 1, 0));
  const uint64_t train = uint64_t(std::max(spec.sequences - spec.test, 0)), test = uint64_t(std::max(spec.test, 0));
  const uint64_t params = SineLayout(hidden).total, shards = std::min<uint64_t>(kShards, train);
  uint64_t floats = 2 * steps * (train + test) + 4 * params;  // the two sets; parameters, gradient, Adam's m and v
  if (cpu_training) {
    // Each shard keeps the larger of its training and its held-out share: together at most both sets.
    const uint64_t both = train + test;
    floats += 2 * steps * both + pass_floats(int64_t(both), int64_t(steps), hidden) + 2 * steps * both;  // slices; passes; row_loss, dpred
    floats += steps * train * (H + 1) + 3 * H * both + shards * params;  // dh, dx; zeros, dh0, dc0; gradients
  }
  // predict: a pass over the held-out waves, its one-step predictions, then `future` values of each.
  floats += pass_floats(int64_t(test), int64_t(steps), hidden) + steps * test + uint64_t(std::max<int64_t>(future, 0)) * test;
  // sine.png: three lines of a point every chart_stride steps, each point's x and y (doubles) in the
  // lines, in the chart's copy and twice over while a line grows: 8 doubles a point (about 6
  // measured), and the picture's pixels.
  const int64_t horizon = std::max<int64_t>(future, 0);
  const uint64_t points = 3 * (uint64_t(spec.length + horizon) / uint64_t(chart_stride(spec, long(horizon))) + 1);
  const uint64_t picture = 8 * sizeof(double) * points + (uint64_t(8) << 20);
  return sizeof(float) * floats + picture + sizeof(int) * (train + test);
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
