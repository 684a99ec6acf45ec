#pragma once
// The course framework: the CPU trainer of every lesson that trains on the host. A lesson registers
// what is its own as a HostKit (its network, the optimizers' update functions, the epoch's order and
// its batches, the evaluation); the trainer does the rest the same way for every lesson: the memory
// check, the first lines, the epochs (the framework's epoch loop), the NaN watch, metrics.csv,
// --save's .npy files, the pictures and run.txt. Each step:
//
//   gather (kit.gather) -> forward + loss + backward (the network) -> the update (the rule of
//   kit.rules for --optimizer, on the network's threads where it has them) -> the batch's loss and
//   right answers added to the epoch's
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "framework/host_optimizer.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"
#include "framework/training_data.hpp"

namespace framework {

// A network as the CPU trainer sees it (lesson 02's HostNetwork and every network built on it).
class HostModel {
 public:
  virtual ~HostModel() = default;
  virtual const ModelSpec& spec() const = 0;
  virtual const std::vector<LayerPlan>& plan() const = 0;
  virtual std::vector<Parameter>& parameters() = 0;
  virtual const std::vector<Parameter>& parameters() const = 0;
  // x: batch x C x H x W -> logits: batch x classes; keeps nothing for a backward pass.
  virtual void forward(const float* x, int batch, float* logits) = 0;
  // Forward, the mean softmax-cross-entropy loss (returned), backward: every Parameter::grad
  // overwritten; probabilities() then holds the batch's softmax output (batch x classes).
  virtual float forward_backward(const float* x, const int* labels, int batch) = 0;
  virtual const std::vector<float>& probabilities() const = 0;
  // body(begin, end) on ranges that cover [0, count): the optimizer's update, on the network's threads.
  virtual void for_ranges(size_t count, const std::function<void(size_t begin, size_t end)>& body) = 0;
  // What training changes beside the parameters, for --save (batch norm's running statistics).
  virtual std::vector<Parameter> running_tensors() const = 0;
};

// The test set through a network: the mean loss, the accuracy in [0, 1], the confusion matrix
// (classes x classes: row = true label, column = predicted) and every prediction.
struct HostEvaluation {
  double loss = 0, accuracy = 0;
  std::vector<int> confusion;
  std::vector<int> predictions;
};

// What a lesson registers with the CPU trainer.
struct HostKit {
  // The network for a spec, from the initial weights.
  std::function<std::unique_ptr<HostModel>(const ModelSpec& spec, std::vector<Parameter> init)> network;
  std::string network_text;  // the first lines' "network: ..." ("" : none)
  // What the network holds at most, in bytes, for these layers trained at `batch` and evaluated at
  // `eval_batch`: the trainer refuses a run the machine cannot hold before the network is built.
  std::function<uint64_t(const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch)> bytes;
  std::vector<const HostUpdateRule*> rules;  // for kind k the last rule of kind k trains
  std::function<std::vector<int>(int n, uint64_t seed, int epoch)> epoch_order;
  // Copies examples order[first .. first + count) of `data` into x and their labels into labels.
  std::function<void(const course::Dataset& data, const std::vector<int>& order, int first, int count, float* x,
                     int* labels)>
      gather;
  // `data` in order through the network, `batch` examples at a time.
  std::function<HostEvaluation(HostModel& net, const course::Dataset& data, int batch)> evaluate;
};

// The batch the CPU trainer evaluates with (inference keeps nothing per layer, so it is larger than a
// training batch).
constexpr int kHostEvalBatch = 256;
// What a run holds beside the buffers an estimate counts, for `bytes` of them: the allocator's freed
// pieces it keeps for reuse and its bookkeeping, and the pages of code and stack the first passes
// touch. host_run_bytes adds it; measured runs stayed within it.
inline uint64_t allocator_allowance(uint64_t bytes) { return bytes / 256 + (uint64_t(4) << 20); }
// About what a whole run holds in bytes: the network (kit.bytes), the optimizer's state, a training
// batch, the evaluation's and --save's buffers. The data set is not counted: it is loaded already.
uint64_t host_run_bytes(const TrainConfig& config, const std::vector<LayerPlan>& plan, int classes, int train_count,
                        int test_count, const HostKit& kit);

// Trains on `data` (loaded and checked by load_training_data(config)) with the kit's network, evaluates
// after every epoch; one line an epoch on stdout, and under --out metrics.csv, filters.png (the first
// layer's weights), misclassified.png and confusion.png; with --save the .npy files of save_npy. A NaN
// or Inf loss stops training; a diverging one is warned of. Throws course::Error on bad input.
TrainSummary train_on_host(const TrainConfig& config, const TrainingData& data, const HostKit& kit);

}  // namespace framework
