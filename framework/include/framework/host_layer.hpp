#pragma once
// The course framework: a layer on the CPU (the framework's ChainLayer, layer.hpp, with its buffers in
// host memory) and the network that chains them (HostStack). A lesson writes each kind's passes as
// a HostLayer and builds the list; the chain, the loss's place in it, training or evaluation and
// what --save keeps are the same for every host network:
//
//   x --> layer 0 --> ... --> layer L-1 --> logits --> loss --> mean loss, probabilities
//         (nothing) <-- ... <-- input_grad() <-- logits_grad() <--
//
// A host layer's buffers grow to the batch it is given (a training batch, or the larger batch the
// evaluation runs), never shrink, and let the old values go before they grow: grow_to.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/host_trainer.hpp"  // HostModel
#include "framework/layer.hpp"
#include "framework/layer_makers.hpp"
#include "framework/model.hpp"

namespace framework {

// Sizes a scratch buffer to n values. Growing, it lets the old values go first: a plain resize would
// hold the old and the new buffer at once while it copies values nobody reads again. The memory
// estimates count every buffer once, so every buffer that grows on demand grows here.
template <typename T>
void grow_to(std::vector<T>& buffer, size_t n) {
  if (n > buffer.capacity()) std::vector<T>().swap(buffer);
  buffer.resize(n);
}

// A layer's weight (k = 0) and bias (k = 1), values and gradients, inside its network's parameter
// list, looked up at each pass (the list stays the network's). The gradients may go to a list of
// their own (a shard of a batch reads the network's weights and keeps its own gradients).
class HostParams {
 public:
  HostParams(std::vector<Parameter>& params, const LayerPlan& plan) : HostParams(params, params, plan) {}
  HostParams(std::vector<Parameter>& values, std::vector<Parameter>& grads, const LayerPlan& plan)
      : values_(&values), grads_(&grads), first_(size_t(plan.weight)) {}
  float* value(size_t k) const { return (*values_).at(first_ + k).value.data(); }
  float* grad(size_t k) const { return (*grads_).at(first_ + k).grad.data(); }

 private:
  std::vector<Parameter>*values_, *grads_;
  size_t first_;
};

class HostLayer : public ChainLayer {
 public:
  using ChainLayer::ChainLayer;
  float* output() override { return out_.data(); }
  float* input_grad() override { return din_.data(); }
  // Whether backward must write input_grad(): true but for a network's first layer, whose input
  // gradient nobody reads (a block passes it on to its inner layers).
  virtual void set_input_grad(bool needed) { input_grad_ = needed; }
  bool input_grad_needed() const { return input_grad_; }
  // What a training pass changes beside the parameters, in the order --save names it (batch norm:
  // its running mean, then its running variance; a block: its layers'); none by default.
  virtual std::vector<const std::vector<float>*> running() const { return {}; }

 protected:
  // output() and input_grad() grown to `batch` rows; the pointer to write.
  float* output_rows(int batch) { return grown(out_, batch, out_size()); }
  float* input_grad_rows(int batch) { return grown(din_, batch, in_size()); }

  std::vector<float> out_, din_;
  bool input_grad_ = true;

 private:
  static float* grown(std::vector<float>& buffer, int batch, size_t per_example) {
    grow_to(buffer, size_t(batch) * per_example);
    return buffer.data();
  }
};

// A layer that maps each value alone, y = f(x), with no parameters (a ReLU, a sigmoid): the two
// functions a lesson wrote, and whether the backward pass reads the input (ReLU) or the output
// (sigmoid, tanh) beside dy.
class ElementwiseHostLayer : public HostLayer {
 public:
  using Forward = void (*)(const float* x, float* y, size_t n);
  using Backward = void (*)(const float* x_or_y, const float* dy, float* dx, size_t n);
  enum class BackwardReads { input, output };
  ElementwiseHostLayer(const LayerPlan& plan, Forward forward, Backward backward, BackwardReads reads)
      : HostLayer(layer_text(plan.spec), plan), forward_(forward), backward_(backward), reads_(reads) {}
  void forward(const float* x, int batch) override { forward_(x, output_rows(batch), size_t(batch) * in_size()); }
  void backward(const float* x, const float* dy, int batch) override {
    backward_(reads_ == BackwardReads::output ? out_.data() : x, dy, input_grad_rows(batch), size_t(batch) * in_size());
  }

 private:
  Forward forward_;
  Backward backward_;
  BackwardReads reads_;
};

// What the layers of one host network share: its parameters (their gradients in `grads` when not
// null), the threads their products run on, a scratch buffer (a convolution's im2col workspace) and a
// seed (dropout's masks).
struct HostLayerContext {
  static constexpr const char* side = "host";
  std::vector<Parameter>* params = nullptr;
  int threads = 1;
  std::vector<float>* scratch = nullptr;
  uint64_t seed = 0;
  std::vector<Parameter>* grads = nullptr;
  // The weight and bias of the layer `plan` describes, as these layers read and write them.
  HostParams params_of(const LayerPlan& plan) const { return HostParams(*params, grads ? *grads : *params, plan); }
};

// How lessons register their host layers (layer_makers.hpp): per kind, the function that makes one,
// and the passes over the made list.
using HostLayerMakers = LayerMakers<HostLayer, HostLayerContext>;

// The loss after the last layer: each batch's mean loss, the probabilities and the logits' gradient.
class HostLoss {
 public:
  virtual ~HostLoss() = default;
  // logits: batch x classes. Returns the mean loss; writes probabilities() and logits_grad().
  virtual float forward_backward(const float* logits, const int* labels, int batch) = 0;
  virtual const std::vector<float>& probabilities() const = 0;
  virtual const float* logits_grad() const = 0;
};

// Every layer of `layers` in training (true) or evaluation mode; a block passes it to its own.
void set_training(const HostLayerMakers::Layers& layers, bool training);
// One evaluation pass through `layers`: evaluation mode, the chain; returns the logits.
const float* evaluation_pass(const HostLayerMakers::Layers& layers, const float* x, int batch);
// One training pass: training mode, the chain, the loss, the chain back (every gradient written);
// returns the mean loss.
float training_pass(const HostLayerMakers::Layers& layers, HostLoss& loss, const float* x, const int* labels, int batch);

// A host network as a list of HostLayers: what the CPU trainer takes (HostModel). A lesson derives,
// checks the layer kinds it runs and hands over its layers (one for each layer of plan(), in order)
// and its loss with set_layers.
class HostStack : public HostModel {
 public:
  // Throws course::Error when params do not fit the spec (their count and shapes) or when the spec has
  // a layer outside `accepted` (`who` names the network in that message). Every gradient starts at 0.
  HostStack(ModelSpec spec, std::vector<Parameter> params, const LayerKinds& accepted, const std::string& who);
  HostStack(const HostStack&) = delete;
  HostStack& operator=(const HostStack&) = delete;

  const ModelSpec& spec() const override { return spec_; }
  const std::vector<LayerPlan>& plan() const override { return plan_; }
  std::vector<Parameter>& parameters() override { return params_; }
  const std::vector<Parameter>& parameters() const override { return params_; }
  // Evaluation: every layer in evaluation mode, the chain, the logits copied out.
  void forward(const float* x, int batch, float* logits) override;
  // Training: every layer in training mode, the chain, the loss, the chain back.
  float forward_backward(const float* x, const int* labels, int batch) override;
  const std::vector<float>& probabilities() const override;
  // One range on the calling thread (each element of an update is computed alone).
  void for_ranges(size_t count, const std::function<void(size_t begin, size_t end)>& body) override { body(0, count); }
  // Every layer's running() values, named by framework::running_statistics.
  std::vector<Parameter> running_tensors() const override;
  const std::vector<std::unique_ptr<HostLayer>>& layers() const { return layers_; }

 protected:
  // Once: a layer for every layer of plan() (throws course::Error when the count or a layer's kind
  // differs), and the loss. The first layer is told that nobody reads its input gradient.
  void set_layers(std::vector<std::unique_ptr<HostLayer>> layers, std::unique_ptr<HostLoss> loss);

  ModelSpec spec_;
  std::vector<Parameter> params_;
  std::vector<LayerPlan> plan_;

 private:
  void ready(const char* what, int batch) const;
  std::vector<std::unique_ptr<HostLayer>> layers_;
  std::unique_ptr<HostLoss> loss_;
};

}  // namespace framework
