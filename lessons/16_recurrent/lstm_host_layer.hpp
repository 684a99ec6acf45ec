#pragma once
// Lesson 16 (given): your LSTM (16.1) as one of the framework's host layers, so that a sequence
// network is a chain like every other (framework/layer.hpp): an lstm<H> layer of the model language,
// made by this lesson's makers, followed by any layers that treat each row alone (a dense head on
// every step). Its rows are time-major: `steps` (set_steps) steps of rows / steps sequences.
#include <vector>

#include "framework/host_layer.hpp"
#include "framework/model.hpp"

namespace recurrent {

class LstmOnCpu : public framework::HostLayer {
 public:
  LstmOnCpu(const framework::LayerPlan& plan, const framework::HostLayerContext& context);
  void set_steps(int steps) override;
  // x: rows = steps x sequences (time-major), in_size() values each -> output(): every step's h.
  // The state starts at zero, or where the last forward pass ended (carry_state).
  void forward(const float* x, int rows) override;
  // Backpropagation through the forward pass's steps (16.1's lstm_backward); the gradient stops at
  // the pass's first step (nothing flows into a carried state).
  void backward(const float* x, const float* dy, int rows) override;
  // On: the next forward pass starts from zero, and each after it continues the sequences where the
  // one before stopped (its last step's h and c), for the same number of sequences: a network fed
  // its own predictions a step at a time. Off (the start): every pass starts from zero.
  void carry_state(bool carry) { carry_ = carry, carried_sequences_ = 0; }

  // The floats a pass over `rows` rows holds beside its input: h, c and the four gates a row, and the
  // input's gradient.
  static uint64_t pass_floats(const framework::LayerPlan& plan, uint64_t rows);

 private:
  struct Shape {
    int sequences, steps;
  };
  Shape shape_of(int rows) const;  // throws course::Error unless rows is a whole number of steps

  framework::HostParams params_;
  int steps_ = 1;
  bool carry_ = false;
  int carried_sequences_ = 0;  // sequences of the last forward pass, whose end a carried state starts from
  std::vector<float> c_, gates_, h0_, c0_, dh0_, dc0_;
};

// Lesson 11's host layers (conv, dense, relu, max-pool) and the LSTM: what a sequence network of this
// lesson is made of on the CPU.
const framework::HostLayerMakers& sequence_host_layers();
// The kinds such a network runs here: an LSTM, dense layers and ReLUs.
const framework::LayerKinds& sequence_layers();

}  // namespace recurrent
