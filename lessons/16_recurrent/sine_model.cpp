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

std::string sine_model_text(int hidden) { return "lstm" + std::to_string(hidden) + ",dense1"; }

framework::ModelSpec sine_model(const std::string& text, const framework::LayerKinds& kinds) {
  framework::ModelSpec spec = framework::model_by_name(text);
  spec.in_channels = 1, spec.height = 1, spec.width = 1, spec.classes = 1;  // a value a step in, one out
  framework::require_layers(spec, kinds, "the sine task's network");
  const framework::LayerSpec& last = spec.layers.back();
  if (last.kind != framework::LayerKind::dense || last.out != 1)
    throw course::Error("model '" + course::shown(spec.name, 80) + "': the sine task's network ends in dense1 (one "
                        "value a step), not '" + framework::layer_text(last) + "'");
  framework::plan_layers(spec);  // the sizes: throws naming the layer
  return spec;
}

namespace {
std::vector<float> end_to_end(const std::vector<framework::Parameter>& params) {
  std::vector<float> all;
  for (const framework::Parameter& p : params) all.insert(all.end(), p.value.begin(), p.value.end());
  return all;
}
}  // namespace

std::vector<float> start_parameters(const framework::ModelSpec& spec, uint64_t seed) {
  return end_to_end(framework::init_parameters(spec, seed));
}

uint64_t forward_floats(const std::vector<framework::LayerPlan>& plan, uint64_t rows) {
  uint64_t per_row = 0;
  for (const framework::LayerPlan& p : plan)
    per_row += uint64_t(p.out_size()) * (p.spec.kind == framework::LayerKind::lstm ? 6 : 1);
  return rows * per_row;
}

uint64_t backward_floats(const std::vector<framework::LayerPlan>& plan, uint64_t rows) {
  uint64_t per_row = 0;
  for (const framework::LayerPlan& p : plan) per_row += uint64_t(p.in_size());
  return rows * per_row;
}

SineNetwork::SineNetwork(const framework::ModelSpec& spec, uint64_t seed, int threads,
                         const framework::OptimizerConfig& optimizer)
    : threads_(threads),
      spec_(spec),
      plan_(framework::plan_layers(spec_)),
      params_(framework::init_parameters(spec_, seed)),
      optimizer_(optimizer, params_) {
  if (threads < 1) throw course::Error("SineNetwork: threads must be >= 1, got " + std::to_string(threads));
  framework::require_layers(spec_, sequence_layers(), "SineNetwork");
  if (plan_.front().in_size() != 1 || plan_.back().out_size() != 1)
    throw course::Error("SineNetwork: the network reads one value a step and gives one");
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

uint64_t SineNetwork::run_bytes(const SineSpec& spec, const std::vector<framework::LayerPlan>& plan,
                                int64_t future, bool cpu_training) {
  const uint64_t steps = uint64_t(std::max(spec.length - 1, 0));
  const uint64_t train = uint64_t(std::max(spec.sequences - spec.test, 0)), test = uint64_t(std::max(spec.test, 0));
  const uint64_t params = framework::parameter_values(plan), shards = std::min<uint64_t>(kShards, train);
  uint64_t state = 0;  // per sequence: each LSTM's starting h and c, and their gradients
  for (const framework::LayerPlan& p : plan)
    if (p.spec.kind == framework::LayerKind::lstm) state += 4 * uint64_t(p.out_size());
  uint64_t floats = 2 * steps * (train + test) + 4 * params;  // the two sets; parameters, gradient, Adam's m and v
  if (cpu_training) {
    // Each shard keeps the larger of its training and its held-out share: together at most both sets.
    const uint64_t both = train + test;
    floats += 2 * steps * both + forward_floats(plan, steps * both) + 2 * steps * both;  // slices; passes; row_loss, dpred
    floats += backward_floats(plan, steps * train) + state * both + shards * params;  // input gradients; states; gradients
  }
  // predict: a pass over the held-out waves, its one-step predictions, then `future` values of each.
  floats += forward_floats(plan, steps * test) + state * test + steps * test +
            uint64_t(std::max<int64_t>(future, 0)) * test;
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
  std::vector<LstmOnCpu*> lstms;
  for (const auto& layer : own.layers)
    if (auto* lstm = dynamic_cast<LstmOnCpu*>(layer.get())) lstms.push_back(lstm);
  for (LstmOnCpu* lstm : lstms) lstm->carry_state(true);  // from zero, then on from where each pass ended
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
  for (LstmOnCpu* lstm : lstms) lstm->carry_state(false);
  return generated;
}

}  // namespace recurrent
