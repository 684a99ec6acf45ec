#pragma once
// Lesson 16 (given): the sine task's network on the CPU, built as the framework builds every network:
// the model "lstm<hidden>,dense1" (one value a step in, one out), its layers made by this lesson's
// makers (lstm_host_layer.hpp: your LSTM, 16.1, then lesson 11's dense layer, a head on every step)
// and run by the framework's chain. The loss is the mean squared error of every step's prediction
// (lesson 15's 15.4), minimised by the framework's optimizer with lesson 02's Adam. The weights start
// as the framework starts every model (init_parameters): the LSTM's as PyTorch's nn.LSTM starts them.
//
// The sequences are independent until the gradients are summed: lesson 11's 11.7 cuts them into
// kShards shards, each run through its own copy of the layers on a thread of its own (its own states
// and gradients, the network's weights), and adds the shards' gradients in shard order. The shards
// are the same for any number of threads: so are the results, bit for bit.
#include <cstdint>
#include <memory>
#include <vector>

#include "framework/host_layer.hpp"
#include "framework/model.hpp"
#include "host_training.hpp"  // lesson 02's optimizer
#include "recurrent.hpp"
#include "sine_task.hpp"

namespace recurrent {

// The sine task's model: lstm<hidden>,dense1 on one value a step. Throws course::Error for hidden < 1.
framework::ModelSpec sine_model(int hidden);
// Where each tensor starts when the model's parameters are laid end to end (w_ih at 0, [4H x 1]),
// and how many values there are: the model's order, nn.LSTM's w_ih, w_hh, b_ih, b_hh, then the
// head's weight [1 x H] and bias.
struct SineLayout {
  size_t w_hh, b_ih, b_hh, head, head_b, total;
  explicit SineLayout(int hidden);
};
// The model's starting weights (init_parameters(sine_model(hidden), seed)), laid end to end.
std::vector<float> sine_start_parameters(int hidden, uint64_t seed);

class SineNetwork {
 public:
  static constexpr int kShards = 16;  // or one a sequence, for fewer sequences

  // optimizer: the run's (--optimizer, --lr); throws course::Error when lesson 02 has no rule for it.
  SineNetwork(int hidden, uint64_t seed, int threads, const framework::OptimizerConfig& optimizer);
  int hidden() const { return hidden_; }
  size_t parameter_count() const { return SineLayout(hidden_).total; }
  // The weights laid end to end (SineLayout's order), and weights trained elsewhere (the GPU's) in
  // that order; set_parameters throws course::Error on a wrong size.
  std::vector<float> parameters() const;
  void set_parameters(const std::vector<float>& params);

  // The mean squared error of the set's next-value predictions; with `learn`, every gradient too.
  double loss(const SineSet& set, bool learn);
  // One step of the optimizer on the gradients of the last loss(set, true).
  void update();
  // For every sequence of the set: its one-step-ahead predictions (steps of them, time-major), then
  // `future` more values, each from the network fed its own previous prediction (one thread).
  std::vector<float> predict(const SineSet& set, int future, std::vector<float>* one_step_ahead);

  // About what a run of train_sine holds on the host at most, in bytes: the data, this network (its
  // parameters, Adam's state, each shard's sequences, passes and gradients when it trains on the
  // CPU: `cpu_training`), predict's pass over the held-out waves and their `future` values, and the
  // picture. Worked out in 64 bits from the sizes the passes allocate (pass_floats).
  static uint64_t run_bytes(const SineSpec& spec, int hidden, int64_t future, bool cpu_training);
  // The floats one pass over `batch` sequences of `steps` steps holds: h, c, the four gates, pred.
  static uint64_t pass_floats(int64_t batch, int64_t steps, int hidden);

 private:
  struct Shard {  // one shard's sequences, layers and gradients: kept from epoch to epoch, reused
    SineSet set;
    std::vector<framework::Parameter> grads;  // shard 0: none (it writes the network's)
    framework::HostLayerMakers::Layers layers;
    std::vector<float> row_loss, dpred;
  };
  // Shard k, made on first use: the model's layers reading this network's weights, writing their
  // gradients into the shard's own (shard 0: the network's); `learn`: its gradients allocated.
  Shard& shard(size_t k, bool learn);
  // One shard (its set filled): its share of the loss (its rows' squared errors over all_rows) and,
  // with learn, its gradients of that share.
  double shard_loss(Shard& shard, int64_t all_rows, bool learn);

  int hidden_, threads_;
  framework::ModelSpec spec_;
  std::vector<framework::LayerPlan> plan_;
  std::vector<framework::Parameter> params_;
  host_training::Optimizer optimizer_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::unique_ptr<Shard> generator_;  // predict's layers (their LSTM carries its state)
};

}  // namespace recurrent
