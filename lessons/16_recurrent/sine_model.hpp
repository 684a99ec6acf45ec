#pragma once
// Lesson 16 (given): the sine task's network on the CPU: your LSTM (16.1) of `hidden` units reading
// one value a step, and a dense head (lesson 01) turning each step's h into the next value's
// prediction. The loss is the mean squared error of every step's prediction (lesson 15's 15.4),
// minimised with Adam (lesson 02). Weights start as PyTorch's nn.LSTM and nn.Linear start them:
// uniform in [-1/sqrt(hidden), 1/sqrt(hidden)].
//
// The sequences are independent until the gradients are summed: lesson 11's 11.7 cuts them into
// kShards shards, each run through the whole network on a thread of its own with its own states and
// gradients, and adds the shards' gradients in shard order. The shards are the same for any number
// of threads: so are the results, bit for bit.
#include <cstdint>
#include <vector>

#include "recurrent.hpp"
#include "sine_task.hpp"

namespace recurrent {

// Where each tensor starts in the network's one array of parameters (w_ih at 0, [4H x 1]), and how
// many there are: nn.LSTM's w_ih, w_hh, b_ih, b_hh, then nn.Linear's weight [1 x H] and bias.
struct SineLayout {
  size_t w_hh, b_ih, b_hh, head, head_b, total;
  explicit SineLayout(int hidden);
};
// The starting weights: uniform in [-1/sqrt(hidden), 1/sqrt(hidden)], drawn from `seed`.
std::vector<float> sine_start_parameters(int hidden, uint64_t seed);

class SineNetwork {
 public:
  static constexpr int kShards = 16;  // or one a sequence, for fewer sequences

  SineNetwork(int hidden, uint64_t seed, int threads);
  int hidden() const { return hidden_; }
  size_t parameter_count() const { return params_.size(); }
  const std::vector<float>& parameters() const { return params_; }
  // Weights trained elsewhere (the GPU's), in SineLayout's order; throws course::Error on a wrong size.
  void set_parameters(const std::vector<float>& params);

  // The mean squared error of the set's next-value predictions; with `learn`, every gradient too.
  double loss(const SineSet& set, bool learn);
  // One Adam step (lesson 02) on the gradients of the last loss(set, true); step counts from 1.
  void update(float lr, int step);
  // For every sequence of the set: its one-step-ahead predictions (steps of them, time-major), then
  // `future` more values, each from the network fed its own previous prediction (one thread).
  std::vector<float> predict(const SineSet& set, int future, std::vector<float>* one_step_ahead) const;

  // About what a run of train_sine holds on the host at most, in bytes: the data, this network (its
  // parameters, Adam's state, each shard's sequences, passes and gradients when it trains on the
  // CPU: `cpu_training`), predict's pass over the held-out waves and their `future` values, and the
  // picture. Worked out in 64 bits from the sizes the passes allocate (pass_floats).
  static uint64_t run_bytes(const SineSpec& spec, int hidden, int64_t future, bool cpu_training);
  // The floats one pass over `batch` sequences of `steps` steps holds: h, c, the four gates, pred.
  static uint64_t pass_floats(int64_t batch, int64_t steps, int hidden);

 private:
  struct Pass {  // what one run of the network over some sequences holds
    std::vector<float> h, c, gates, pred;
  };
  struct Shard {  // one shard's sequences, run and gradients: kept from epoch to epoch, reused
    SineSet set;
    Pass pass;
    std::vector<float> zeros, row_loss, dpred, dh, dx, dh0, dc0, grad;
  };
  LstmParams<float> lstm() const;
  const float* head_w() const { return params_.data() + head_; }
  // The LSTM and the head over `inputs` (steps x batch, time-major) from (h0, c0) into pass.
  void run(Pass& pass, int batch, int steps, const float* inputs, const float* h0, const float* c0) const;
  // One shard (its set filled): its share of the loss (its rows' squared errors over all_rows) and,
  // with learn, its gradients of that share in shard.grad.
  double shard_loss(Shard& shard, int64_t all_rows, bool learn) const;

  int hidden_, threads_;
  size_t w_hh_, b_ih_, b_hh_, head_, head_b_;  // where each tensor starts in params_ (w_ih at 0)
  std::vector<float> params_, grad_, m_, v_;
  std::vector<Shard> shards_;
};

}  // namespace recurrent
