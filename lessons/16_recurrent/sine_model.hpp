#pragma once
// Lesson 16 (given): the sine task's network on the CPU: your LSTM (16.1) of `hidden` units reading
// one value a step, and a dense head (lesson 01) turning each step's h into the next value's
// prediction. The loss is the mean squared error of every step's prediction (lesson 15's 15.4),
// minimised with Adam (lesson 02). Weights start as PyTorch's nn.LSTM and nn.Linear start them:
// uniform in [-1/sqrt(hidden), 1/sqrt(hidden)].
#include <cstdint>
#include <vector>

#include "recurrent.hpp"
#include "sine_task.hpp"

namespace recurrent {

class SineNetwork {
 public:
  SineNetwork(int hidden, uint64_t seed);
  SineNetwork(const SineNetwork&) = delete;  // `tensors` points at this object's own members
  SineNetwork& operator=(const SineNetwork&) = delete;
  int hidden() const { return hidden_; }
  size_t parameter_count() const;

  // The mean squared error of the set's next-value predictions; with `learn`, every gradient too.
  double loss(const SineSet& set, bool learn);
  // One Adam step (lesson 02) on the gradients of the last loss(set, true); step counts from 1.
  void update(float lr, int step);
  // For every sequence of the set: its one-step-ahead predictions (steps of them, time-major), then
  // `future` more values, each from the network fed its own previous prediction.
  std::vector<float> predict(const SineSet& set, int future, std::vector<float>* one_step_ahead);

 private:
  struct Tensor {
    std::vector<float> value, grad, m, v;
  };
  LstmShape shape(int batch, int steps) const { return {batch, steps, 1, hidden_}; }
  LstmParams<float> lstm() const;
  // The LSTM over `inputs` from (h0, c0); h, c and gates sized and written.
  void run(const LstmShape& s, const float* inputs, const float* h0, const float* c0);
  Tensor* tensors[6] = {&w_ih_, &w_hh_, &b_ih_, &b_hh_, &head_w_, &head_b_};

  int hidden_;
  Tensor w_ih_, w_hh_, b_ih_, b_hh_, head_w_, head_b_;
  std::vector<float> h_, c_, gates_, pred_;  // of the last run
};

}  // namespace recurrent
