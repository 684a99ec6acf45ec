// Lesson 16 (given): the sine task's network on the CPU (sine_model.hpp).
#include "sine_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "course/error.hpp"
#include "deeper_cnns.hpp"      // 15.4's regression_loss
#include "fast_cpu.hpp"         // 11.7's run_shards and sum_in_order
#include "framework/layer.hpp"  // the chain
#include "lstm_host_layer.hpp"

namespace recurrent {

framework::ModelSpec sine_model(int hidden) {
  if (hidden < 1) throw course::Error("sine network: hidden must be >= 1, got " + std::to_string(hidden));
  framework::ModelSpec spec;
  spec.in_channels = 1, spec.height = 1, spec.width = 1, spec.classes = 1;
  spec.layers = {framework::lstm_layer(hidden), framework::dense_layer(1)};
  spec.name = framework::model_text(spec);
  return spec;
}

SineLayout::SineLayout(int hidden) {
  if (hidden < 1) throw course::Error("sine network: hidden must be >= 1, got " + std::to_string(hidden));
  const size_t G = 4 * size_t(hidden);
  w_hh = G, b_ih = w_hh + G * hidden, b_hh = b_ih + G, head = b_hh + G, head_b = head + hidden, total = head_b + 1;
}

namespace {
std::vector<float> end_to_end(const std::vector<framework::Parameter>& params) {
  std::vector<float> all;
  for (const framework::Parameter& p : params) all.insert(all.end(), p.value.begin(), p.value.end());
  return all;
}
}  // namespace

std::vector<float> sine_start_parameters(int hidden, uint64_t seed) {
  return end_to_end(framework::init_parameters(sine_model(hidden), seed));
}

SineNetwork::SineNetwork(int hidden, uint64_t seed, int threads, const framework::OptimizerConfig& optimizer)
    : hidden_(hidden),
      threads_(threads),
      spec_(sine_model(hidden)),
      plan_(framework::plan_layers(spec_)),
      params_(framework::init_parameters(spec_, seed)),
      optimizer_(optimizer, params_) {
  if (threads < 1) throw course::Error("SineNetwork: threads must be >= 1, got " + std::to_string(threads));
  framework::require_layers(spec_, sequence_layers(), "SineNetwork");
}

std::vector<float> SineNetwork::parameters() const { return end_to_end(params_); }

void SineNetwork::set_parameters(const std::vector<float>& params) {
  if (params.size() != parameter_count())
    throw course::Error("SineNetwork::set_parameters: " + std::to_string(params.size()) + " values for " +
                        std::to_string(parameter_count()) + " parameters");
  size_t at = 0;
  for (framework::Parameter& p : params_) {
    std::copy(params.begin() + long(at), params.begin() + long(at + p.value.size()), p.value.begin());
    at += p.value.size();
  }
}

SineNetwork::Shard& SineNetwork::shard(size_t k, bool learn) {
  std::unique_ptr<Shard>& made = k < shards_.size() ? shards_[k] : generator_;
  if (!made) {
    made = std::make_unique<Shard>();
    if (k > 0)
      for (const framework::Parameter& p : params_) made->grads.push_back({p.name, p.shape, {}, {}});
    framework::HostLayerContext context;
    context.params = &params_;  // the layers read the network's weights
    context.grads = k == 0 ? &params_ : &made->grads;
    made->layers = sequence_host_layers().make(plan_, context);
  }
  if (learn)
    for (size_t t = 0; t < made->grads.size(); ++t) made->grads[t].grad.resize(params_[t].value.size());
  return *made;
}

double SineNetwork::shard_loss(Shard& shard, int64_t all_rows, bool learn) {
  const SineSet& set = shard.set;
  const int rows = set.steps * set.count;
  framework::set_steps(shard.layers, set.steps);
  const float* pred = framework::chain_forward(shard.layers, set.inputs.data(), rows);
  framework::grow_to(shard.row_loss, size_t(rows)), framework::grow_to(shard.dpred, size_t(rows));
  const double mean = deeper_cnns::regression_loss<float>(deeper_cnns::RegressionLoss::squared, pred,
                                                          set.targets.data(), rows, 1, 1.0f, shard.row_loss.data(),
                                                          shard.dpred.data());
  const double share = double(rows) / double(all_rows);  // this shard's rows' part of the mean over all rows
  if (!learn) return mean * share;
  for (float& d : shard.dpred) d = float(d * share);
  framework::chain_backward(shard.layers, set.inputs.data(), shard.dpred.data(), rows);
  return mean * share;
}

double SineNetwork::loss(const SineSet& set, bool learn) {
  const int count = std::min(kShards, set.count);
  const int64_t all_rows = int64_t(set.steps) * set.count;
  if (shards_.size() < size_t(count)) shards_.resize(size_t(count));  // never shrunk: the buffers stay
  for (int k = 0; k < count; ++k) shard(size_t(k), learn);  // made here, on one thread
  const double loss = fast_cpu::run_shards(set.count, count, threads_, [&](int k, int begin, int end) {
    Shard& part = *shards_[size_t(k)];
    slice_sequences(set, begin, end, part.set);
    return shard_loss(part, all_rows, learn);
  });
  if (learn)  // every gradient: the shards' added in shard order, into shard 0's (the network's)
    for (size_t t = 0; t < params_.size(); ++t) {
      std::vector<const float*> parts;
      for (int k = 0; k < count; ++k)
        parts.push_back(k == 0 ? params_[t].grad.data() : shards_[size_t(k)]->grads[t].grad.data());
      fast_cpu::sum_in_order(parts, params_[t].grad.size(), params_[t].grad.data(), threads_);
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

void SineNetwork::update() { optimizer_.step(params_); }

std::vector<float> SineNetwork::predict(const SineSet& set, int future, std::vector<float>* one_step_ahead) {
  Shard& own = shard(shards_.size(), false);  // past the training shards: the generator
  auto* lstm = dynamic_cast<LstmOnCpu*>(own.layers.front().get());
  if (!lstm) throw course::Error("SineNetwork::predict: the first layer is not an LSTM");
  lstm->carry_state(true);  // from zero, then on from where each pass ended
  framework::set_steps(own.layers, set.steps);
  const int rows = set.steps * set.count;
  const float* pred = framework::chain_forward(own.layers, set.inputs.data(), rows);
  if (one_step_ahead) one_step_ahead->assign(pred, pred + rows);
  std::vector<float> x(pred + rows - set.count, pred + rows);  // the prediction of each last value
  std::vector<float> generated;
  generated.reserve(size_t(future) * set.count);
  framework::set_steps(own.layers, 1);
  for (int t = 0; t < future; ++t) {  // one step, fed its own prediction
    pred = framework::chain_forward(own.layers, x.data(), set.count);
    x.assign(pred, pred + set.count);
    generated.insert(generated.end(), x.begin(), x.end());
  }
  lstm->carry_state(false);
  return generated;
}

}  // namespace recurrent
