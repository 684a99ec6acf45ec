#pragma once
// Lesson 16 (given): the sine task's network on the CPU, built as the framework builds every network:
// a model of the model language that reads one value a step and gives one (by default
// lstm51,dense1), its layers made by this lesson's makers (lstm_host_layer.hpp: your LSTM, 16.1, and
// lesson 11's dense layers and ReLUs; a dense layer after an LSTM is a head on every step) and run by
// the framework's chain. The loss is the mean squared error of every step's prediction
// (lesson 15's 15.4), minimised by the framework's optimizer with lesson 02's Adam. The weights start
// as the framework starts every model (init_parameters): the LSTM's as PyTorch's nn.LSTM starts them.
//
// The sequences are independent until the gradients are summed: lesson 11's 11.7 cuts them into
// kShards shards, each run through its own copy of the layers on a thread of its own (its own states
// and gradients, the network's weights), and adds the shards' gradients in shard order. The shards
// are the same for any number of threads: so are the results, bit for bit.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/host_layer.hpp"
#include "framework/model.hpp"
#include "host_training.hpp"  // lesson 02's optimizer
#include "recurrent.hpp"
#include "sine_task.hpp"

namespace recurrent {

// The sine task's default model: lstm<hidden>,dense1 (PyTorch's example: 51 units).
std::string sine_model_text(int hidden);
// `text` (a layer list or "@file", as every trainer's --model) as a model of this task: one value a
// step in, one out (its last layer dense1). Throws course::Error (naming the layer) when it ends in
// another layer, its sizes do not work out or it has a layer outside `kinds` (what the network that
// runs it runs).
framework::ModelSpec sine_model(const std::string& text, const framework::LayerKinds& kinds);
// The model's starting weights (init_parameters), laid end to end in its parameters' order (for
// lstm<H>,dense1: nn.LSTM's w_ih, w_hh, b_ih, b_hh, then the head's weight and bias).
std::vector<float> start_parameters(const framework::ModelSpec& spec, uint64_t seed);
// The floats one pass over `rows` rows of these layers holds: every layer's output (an LSTM's c and
// four gates besides its h); and a backward pass: every layer's input gradient.
uint64_t forward_floats(const std::vector<framework::LayerPlan>& plan, uint64_t rows);
uint64_t backward_floats(const std::vector<framework::LayerPlan>& plan, uint64_t rows);

class SineNetwork {
 public:
  static constexpr int kShards = 16;  // or one a sequence, for fewer sequences

  // spec: sine_model's, on the CPU's kinds (sequence_layers); optimizer: the run's (--optimizer,
  // --lr). Throws course::Error when lesson 02 has no rule for it.
  SineNetwork(const framework::ModelSpec& spec, uint64_t seed, int threads,
              const framework::OptimizerConfig& optimizer);
  const framework::ModelSpec& spec() const { return spec_; }
  size_t parameter_count() const { return size_t(framework::parameter_values(plan_)); }
  // The weights laid end to end (start_parameters' order), and weights trained elsewhere (the GPU's)
  // in that order; set_parameters throws course::Error on a wrong size.
  std::vector<float> parameters() const;
  void set_parameters(const std::vector<float>& params);

  // The mean squared error of the set's next-value predictions; with `learn`, every gradient too.
  double loss(const SineSet& set, bool learn);
  // One step of the optimizer on the gradients of the last loss(set, true).
  void update();
  // For every sequence of the set: its one-step-ahead predictions (steps of them, time-major), then
  // `future` more values, each from the network fed its own previous prediction (one thread; every
  // LSTM carries its state from one step's pass to the next).
  std::vector<float> predict(const SineSet& set, int future, std::vector<float>* one_step_ahead);

  // About what a run of train_sine holds on the host at most, in bytes: the data, this network of
  // `plan`'s layers (its parameters, the optimizer's state, each shard's sequences, passes and
  // gradients when it trains on the CPU: `cpu_training`), predict's pass over the held-out waves and
  // their `future` values, and the picture. Worked out in 64 bits from the sizes the passes allocate.
  static uint64_t run_bytes(const SineSpec& spec, const std::vector<framework::LayerPlan>& plan, int64_t future,
                            bool cpu_training);

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

  int threads_;
  framework::ModelSpec spec_;
  std::vector<framework::LayerPlan> plan_;
  std::vector<framework::Parameter> params_;
  host_training::Optimizer optimizer_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::unique_ptr<Shard> generator_;  // predict's layers (their LSTM carries its state)
};

}  // namespace recurrent
