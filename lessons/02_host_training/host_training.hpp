#pragma once
// Lesson 02: training a CNN on the host with the layers of lesson 01.
//
// What lives here:
//   * optimizers (step 02.1 SGD with momentum, step 02.1 Adam) and an Optimizer that
//     keeps their state for a whole parameter list;
//   * the models described as data (ModelSpec, from the course framework, beneath the lessons);
//   * HostNetwork: forward (given) and forward + backward (step 02.2);
//   * seeded shuffling and minibatches (step 02.3), evaluation (step 02.4);
//   * host_kit(): all of it registered with the framework's CPU trainer (framework/host_trainer.hpp:
//     the training loop with progress bar, CSV and pictures).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/idx.hpp"
#include "framework/model.hpp"
#include "framework/host_optimizer.hpp"
#include "framework/host_layer.hpp"  // grow_to
#include "framework/host_trainer.hpp"
#include "framework/optimizer_config.hpp"
#include "framework/train_config.hpp"
#include "framework/training_data.hpp"
#include "host_layers.hpp"

namespace host_training {

// ---- 02.1 SGD with momentum (PyTorch's formulation) ------------------------------------
//   v = momentum * v + (g + weight_decay * w)
//   w = w - lr * v
// Updates w and velocity in place, n values. momentum = 0 gives plain SGD.
void sgd_momentum_step(float* w, const float* g, float* velocity, size_t n, float lr, float momentum,
                       float weight_decay);

// ---- 02.1 Adam --------------------------------------------------------------------------
// t = 1, 2, ... is the step number (after the first step t = 1).
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   w = w - lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
void adam_step(float* w, const float* g, float* m, float* v, size_t n, float lr, float beta1, float beta2,
               float eps, int t);

// ---- models as data -----------------------------------------------------------------------
// ModelSpec (a network as data: its layers, their sizes, the parameters and their initial values)
// is the course framework's (framework/model.hpp), so that every trainer of the course builds the
// same network from the same weights. Its names are this lesson's too: host_training::ModelSpec.
using namespace framework;

// A network on the host: a ModelSpec and its parameters, run with lesson 01's layers, its chain of
// layers written out by hand (02.2). The framework's CPU trainer takes it as a framework::HostModel,
// as it takes the later lessons' networks (the framework's HostStack: the same chain, its layers
// registered by the lessons).
class HostNetwork : public framework::HostModel {
 public:
  // Throws course::Error when params do not match the spec (their count and shapes), or when the
  // spec has a layer this network does not run (require_layers).
  HostNetwork(ModelSpec spec, std::vector<Parameter> params);
  virtual ~HostNetwork() = default;
  HostNetwork(const HostNetwork&) = default;
  HostNetwork& operator=(const HostNetwork&) = default;
  HostNetwork(HostNetwork&&) = default;
  HostNetwork& operator=(HostNetwork&&) = default;

  const ModelSpec& spec() const override;
  std::vector<Parameter>& parameters() override;
  const std::vector<Parameter>& parameters() const override;
  const std::vector<LayerPlan>& plan() const override;

  // x: batch x C x H x W -> logits: batch x classes. Keeps nothing for a backward pass.
  void forward(const float* x, int batch, float* logits) override;

  // Step 02.2: forward pass keeping what backward needs, mean softmax-cross-entropy loss,
  // backward pass. Returns the mean loss over the batch and OVERWRITES every Parameter::grad
  // with d(mean loss)/d(value). probabilities() then holds the batch's softmax output.
  float forward_backward(const float* x, const int* labels, int batch) override;

  // batch x classes softmax probabilities of the last forward_backward.
  const std::vector<float>& probabilities() const override;

  // body(begin, end) on ranges that cover [0, count), for work on the parameters element by element
  // (the optimizer's update). Here one range on the calling thread; a network with threads of its
  // own may split them. Each element is computed alone, so the split changes no result.
  void for_ranges(size_t count, const std::function<void(size_t begin, size_t end)>& body) override;

  // What training changes beside the parameters, for --save (a later lesson's batch norm: its running
  // statistics, framework::running_statistics); none here.
  std::vector<Parameter> running_tensors() const override { return {}; }

  // The training buffers prepare(batch) sizes, in values: acts[i] (and grads[i]) for layer i's input,
  // acts.back() for the logits, argmax[i] for a max-pool's choices (ints), probs. prepare allocates
  // exactly these, and the memory estimates count them.
  struct Buffers {
    std::vector<size_t> acts, argmax;
    size_t probs = 0;
    uint64_t bytes() const;  // acts and grads, argmax and probs
  };
  static Buffers buffers(const std::vector<LayerPlan>& plan, int classes, int batch);
  // What a HostNetwork of these layers holds at most, in bytes, trained at `batch` and evaluated
  // (forward) at `eval_batch`: the parameters and their gradients, the training buffers, and
  // forward's two buffers of the largest tensor. An estimate from above, taken before it is built.
  static uint64_t bytes_for(const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch);

 protected:  // the passes (02.2 among them) read and write these
  // Sizes the training buffers below for exactly `batch` examples (the memory is reused).
  void prepare(int batch);
  host_layers::ConvShape conv_shape(size_t layer, int batch) const;
  host_layers::PoolShape pool_shape(size_t layer, int batch) const;
  const float* weight_of(size_t layer) const;  // conv/dense layer's weight values
  const float* bias_of(size_t layer) const;
  float* weight_grad_of(size_t layer);
  float* bias_grad_of(size_t layer);

  ModelSpec spec_;
  std::vector<Parameter> params_;
  std::vector<LayerPlan> plan_;
  // Training buffers for forward_backward (layer i reads acts_[i] and writes acts_[i + 1];
  // acts_.back() holds the logits). grads_[i] has the shape of acts_[i] and receives dL/d acts_[i].
  std::vector<std::vector<float>> acts_, grads_;
  std::vector<std::vector<int>> argmax_;  // argmax_[i]: max-pool layer i's choices (empty otherwise)
  std::vector<float> probs_;
  int batch_ = 0;                         // the batch the buffers were last prepared for
};

// ---- optimizer over a parameter list -----------------------------------------------------
// OptimizerConfig (kind, lr, momentum, weight decay, Adam's betas and eps, Adadelta's rho and eps),
// optimizer_config(TrainConfig) and momentum_text are the framework's (framework/optimizer_config.hpp),
// and so is the optimizer that keeps every parameter's state (framework/host_optimizer.hpp). This
// lesson hands it its two update functions as rules: SGD with momentum and Adam (02.1,
// weight decay added to the gradient first, as PyTorch's Adam does).
using UpdateRule = framework::HostUpdateRule;
const UpdateRule& sgd_rule();   // sgd_momentum_step
const UpdateRule& adam_rule();  // adam_step
// This lesson's rules, and a later lesson's after them where it hands one in (`extra`, e.g.
// Adadelta's; nullptr: none): the list the optimizer and host_kit() take.
inline std::vector<const UpdateRule*> update_rules(const UpdateRule* extra = nullptr) {
  return {&sgd_rule(), &adam_rule(), extra};
}
// The framework's optimizer with update_rules(extra) (`extra` must outlive it).
class Optimizer : public framework::HostOptimizer {
 public:
  Optimizer(OptimizerConfig config, const std::vector<Parameter>& params, const UpdateRule* extra = nullptr)
      : framework::HostOptimizer(std::move(config), params, update_rules(extra)) {}
};

// ---- 02.3 seeded shuffling and minibatches ---------------------------------------------------
// Epoch e (0, 1, ...) visits the examples in the order course::Rng(seed, 1 + e).permutation(n).
// Batch b of an epoch holds order[b*size .. b*size + size) (the last batch may be smaller).
std::vector<int> epoch_order(int n, uint64_t seed, int epoch);
// Copies examples order[first], ..., order[first + count - 1] of `data` into x (count x C x H x W)
// and their labels into labels (count values).
void gather_batch(const course::Dataset& data, const std::vector<int>& order, int first, int count, float* x,
                  int* labels);

// ---- 02.4 evaluation -------------------------------------------------------------------------
// loss: mean softmax-cross-entropy over all examples; accuracy: fraction in [0, 1] predicted right;
// confusion: classes x classes counts (row = true label, column = predicted);
// predictions: the predicted class of every example (the first largest logit wins ties).
using Evaluation = framework::HostEvaluation;
// Runs the network (a HostNetwork, or any network the CPU trainer takes) over `data` in order, `batch`
// examples at a time.
Evaluation evaluate(framework::HostModel& net, const course::Dataset& data, int batch);

// ---- the trainer (given) -----------------------------------------------------------------------
// The CPU trainer is the framework's (framework/host_trainer.hpp); this lesson registers with it its
// network (HostNetwork, on lesson 01's layers), its update rules (02.1), its epoch order and
// batches (02.3) and its evaluation (02.4). A later lesson swaps the network (a NetworkMaker: a
// derived one, on other layers or threads, or a list of the framework's host layers) and adds rules.
using NetworkMaker = std::function<std::unique_ptr<framework::HostModel>(const ModelSpec&, std::vector<Parameter>)>;
// What the networks a NetworkMaker makes hold at most, in bytes, for these layers trained at `batch`
// and evaluated at `eval_batch` (HostNetwork::bytes_for for a HostNetwork).
using NetworkBytes = std::function<uint64_t(const std::vector<LayerPlan>& plan, int classes, int batch, int eval_batch)>;
framework::HostKit host_kit();
// The kit with another network: `make` builds it, `what` names it in the first lines, `bytes` counts
// what it holds (left out: a HostNetwork's).
framework::HostKit host_kit(const NetworkMaker& make, const std::string& what, const NetworkBytes& bytes = nullptr);

}  // namespace host_training
