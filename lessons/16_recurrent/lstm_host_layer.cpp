// Lesson 16 (given): the LSTM as a framework host layer (lstm_host_layer.hpp).
#include "lstm_host_layer.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "course/error.hpp"
#include "fast_host_layers.hpp"  // lesson 11's host layers
#include "recurrent.hpp"

namespace recurrent {

using framework::LayerKind;
using framework::LayerPlan;

LstmOnCpu::LstmOnCpu(const LayerPlan& plan, const framework::HostLayerContext& context)
    : HostLayer(framework::layer_text(plan.spec), plan), params_(context.params_of(plan)) {}

void LstmOnCpu::set_steps(int steps) {
  if (steps < 1) throw course::Error(name_ + ": a sequence needs at least one step, got " + std::to_string(steps));
  steps_ = steps;
}

LstmOnCpu::Shape LstmOnCpu::shape_of(int rows) const {
  if (rows < 1 || rows % steps_ != 0)
    throw course::Error(name_ + ": " + std::to_string(rows) + " rows are not whole sequences of " +
                        std::to_string(steps_) + " steps");
  return {rows / steps_, steps_};
}

void LstmOnCpu::forward(const float* x, int rows) {
  const Shape s = shape_of(rows);
  const size_t state = size_t(s.sequences) * out_size();
  if (carry_ && carried_sequences_ > 0) {
    if (carried_sequences_ != s.sequences)
      throw course::Error(name_ + ": a carried state of " + std::to_string(carried_sequences_) +
                          " sequences cannot start " + std::to_string(s.sequences));
    // The last pass's last step: the end of out_ (its h) and of c_ (grown to exactly that pass).
    h0_.assign(out_.end() - long(state), out_.end());
    c0_.assign(c_.end() - long(state), c_.end());
  } else {
    h0_.assign(state, 0.0f), c0_.assign(state, 0.0f);
  }
  float* h = output_rows(rows);
  framework::grow_to(c_, size_t(rows) * out_size()), framework::grow_to(gates_, 4 * size_t(rows) * out_size());
  const LstmParams<float> p{params_.value(0), params_.value(1), params_.value(2), params_.value(3)};
  lstm_forward<float>({s.sequences, s.steps, int(in_size()), int(out_size())}, p, x, h0_.data(), c0_.data(), h,
                      c_.data(), gates_.data());
  carried_sequences_ = carry_ ? s.sequences : 0;
}

void LstmOnCpu::backward(const float* x, const float* dy, int rows) {
  const Shape s = shape_of(rows);
  framework::grow_to(dh0_, h0_.size()), framework::grow_to(dc0_, c0_.size());
  const LstmParams<float> p{params_.value(0), params_.value(1), params_.value(2), params_.value(3)};
  const LstmGrads<float> g{params_.grad(0), params_.grad(1), params_.grad(2), params_.grad(3)};
  // 16.1 writes the input's gradient in any case; a first layer's simply goes unread.
  lstm_backward<float>({s.sequences, s.steps, int(in_size()), int(out_size())}, p, x, h0_.data(), c0_.data(),
                       out_.data(), c_.data(), gates_.data(), dy, nullptr, nullptr, input_grad_rows(rows),
                       dh0_.data(), dc0_.data(), g);
}

uint64_t LstmOnCpu::pass_floats(const LayerPlan& plan, uint64_t rows) {
  return rows * (6 * uint64_t(plan.out_size()) + uint64_t(plan.in_size()));
}

const framework::HostLayerMakers& sequence_host_layers() {
  static const framework::HostLayerMakers makers = [] {
    framework::HostLayerMakers m;
    fast_cpu::add_fast_host_layers(m).add(
        LayerKind::lstm, [](const LayerPlan& p, const framework::HostLayerContext& c, const framework::LayerPlace&,
                            const auto&) { return std::make_unique<LstmOnCpu>(p, c); });
    return m;
  }();
  return makers;
}

const framework::LayerKinds& sequence_layers() {
  static const framework::LayerKinds kinds{{LayerKind::lstm, LayerKind::dense, LayerKind::relu},
                                           "lstm, dense and relu"};
  return kinds;
}

}  // namespace recurrent
