#pragma once
// The course framework: a GPU network built as a list of layers and a loss (lesson 08's GpuNetwork,
// and every layer list after it). A DeviceLayer is the framework's ChainLayer (layer.hpp) with its
// buffers on the device, sized once for the largest batch so that a training step allocates nothing.
//
//   layer i:  forward(x, batch)        reads x (the previous layer's output, or the input batch)
//                                      writes output()                   [batch x out_size]
//             backward(x, dy, batch)   reads the same x and dy = dL/d output()
//                                      writes input_grad() = dL/dx       [batch x in_size]
//                                      and, for conv and dense, the parameter gradients
//
// Backward passes OVERWRITE what they write (as lesson 01's do), so nothing is zeroed per step.
// Rows past `batch` (the buffers hold max_batch rows) are neither read nor written.
//
// A LayerStack holds the layers, the loss and the parameters, runs the passes through them (the
// chain of lesson 02, whatever the layers are) and answers everything the framework asks of a
// network. A lesson builds the layers; the chain is the same for every network:
//
//   x --> layer 0 --> layer 1 --> ... --> layer L-1 --> logits --> loss --> row losses
//   dx <-- ...      <-- input_grad() <--  ...        <-- logits_grad() <--
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/device_buffer.hpp"
#include "framework/layer.hpp"
#include "framework/layer_makers.hpp"
#include "framework/layered_network.hpp"
#include "framework/model.hpp"
#include "framework/parameter_store.hpp"
#include "framework/pass_profile.hpp"

namespace framework {

class DeviceLayer : public ChainLayer {
 public:
  DeviceLayer(std::string name, const LayerPlan& plan, int max_batch);

  int max_batch() const { return max_batch_; }
  // Null for a buffer a fused neighbour made unneeded (a batch norm whose ReLU writes y for it).
  float* output() override { return out_.data(); }
  const float* output() const { return out_.data(); }
  float* input_grad() override { return din_.data(); }
  void set_observer(PassObserver* observer) { observer_ = observer; }  // nullptr: none
  // Which kernels a layer runs (e.g. "tiled"), for the trainer's first lines; "" when its network
  // says it otherwise.
  virtual std::string kernels() const { return ""; }
  // Device memory of its output and input-gradient buffers (less when a fusion gave one back).
  size_t buffer_bytes() const { return (out_.size() + din_.size()) * sizeof(float); }
  // Device memory a layer holds besides its output and input-gradient buffers (its own workspace).
  virtual size_t own_bytes() const { return 0; }
  // Whether the layer's passes go to the stream set_stream gives it. A layer that launches on the
  // default stream cannot be captured into a CUDA graph; one that launches on its stream can.
  virtual bool runs_on_stream() const { return false; }
  // Device arrays of floats a training pass changes beside the parameters (batch norm's running
  // statistics): (pointer, count) each; none by default.
  virtual std::vector<std::pair<float*, size_t>> buffers() { return {}; }
  virtual void set_stream(cudaStream_t stream) { stream_ = stream; }  // a block passes it on too

 protected:
  // 1 <= batch <= max_batch, else throws course::Error ("<name> forward: batch 0 outside 1..128");
  // what: "forward" or "backward". Tells the observer first: every pass opens with it.
  void check_batch(int batch, const char* what) const;

  int max_batch_;
  course::DeviceBuffer<float> out_, din_;
  PassObserver* observer_ = nullptr;
  cudaStream_t stream_ = nullptr;  // honoured by the layers whose runs_on_stream() is true
};

// A parameter tensor's value and gradient inside the ParameterStore.
struct ParamView {
  float* value = nullptr;
  float* grad = nullptr;
};

// What the layers of one GPU network share when they are made: the largest batch (their buffers are
// sized for it) and where each parameter tensor lives in the network's ParameterStore.
struct DeviceLayerContext {
  static constexpr const char* side = "GPU";
  int max_batch = 1;
  // The weight (offset 0) or bias (offset 1) of the layer `plan` describes.
  std::function<ParamView(const LayerPlan& plan, size_t offset)> params;
};

// How lessons register their GPU layers (layer_makers.hpp): per kind, the function that makes one,
// and the passes (fusions) over the made list.
using DeviceLayerMakers = LayerMakers<DeviceLayer, DeviceLayerContext>;

// The loss at the end of the list: logits and labels in, each example's loss and the logits'
// gradient out.
class DeviceLoss {
 public:
  virtual ~DeviceLoss() = default;
  virtual void forward(const float* logits, const int* labels, int batch) = 0;
  virtual void backward(const int* labels, int batch) = 0;
  virtual const float* row_loss() const = 0;
  virtual float* logits_grad() = 0;
  virtual bool runs_on_stream() const = 0;
  virtual void set_stream(cudaStream_t stream) = 0;
  virtual void set_observer(PassObserver* observer) = 0;
};

class LayerStack : public LayeredNetwork {
 public:
  // Checks that `params` fit the spec (require_parameters_fit) and stores them; the derived
  // network then adds its layers (add_layer) and calls layers_added().
  LayerStack(const ModelSpec& spec, const std::vector<Parameter>& params, int max_batch,
             std::unique_ptr<DeviceLoss> loss);

  // ---- the passes ------------------------------------------------------------------------------
  // x: batch x C x H x W on the device. Every layer forward in order (layer 0 reads x, layer i the
  // output of layer i - 1); logits() then holds the last layer's output. Each output stays in its
  // own buffer, so every layer's input is still there for the backward pass.
  void forward(const float* x, int batch) override;
  // forward, the loss on `labels` (device ints) and its gradient, then every layer backward from
  // the last: layer i reads its input (x or layer i - 1's output) and dL/d(its output) (the loss's
  // logits_grad() or layer i + 1's input_grad()). Afterwards row_loss() holds the batch's losses
  // and every gradient in parameters() is fresh. All on the layers' stream: nothing waits.
  void forward_backward(const float* x, const int* labels, int batch) override;

  // ---- the rest --------------------------------------------------------------------------------
  const ModelSpec& spec() const override { return spec_; }
  size_t layer_count() const override { return layers_.size(); }
  const std::string& layer_name(size_t i) const override { return layers_[i]->name(); }
  const LayerPlan& layer_plan(size_t i) const override { return layers_[i]->plan(); }
  const float* layer_output(size_t i) const override { return layers_[i]->output(); }
  int max_batch() const override { return max_batch_; }
  int classes() const override { return spec_.classes; }
  size_t input_size() const override;  // C*H*W values per example
  void forward_and_loss(const float* x, const int* labels, int batch) override;  // forward, then the loss
  ParameterStore& parameters() override { return params_; }
  const ParameterStore& parameters() const { return params_; }
  std::vector<std::unique_ptr<DeviceLayer>>& layers() { return layers_; }
  const float* logits() override { return layers_.back()->output(); }
  const float* row_loss() override { return loss_->row_loss(); }
  void set_observer(PassObserver* observer) override;
  // Training (true, the start) or evaluation: tells every layer (dropout drops only while training).
  void set_training(bool training) override;
  // Whether every layer and the loss launch on the stream set_stream gives them.
  bool runs_on_stream() const;
  // Sends every pass of every layer and of the loss to `stream`; throws course::Error naming the
  // first layer that cannot (runs_on_stream() false: it would launch on the default stream).
  void set_stream(cudaStream_t stream);
  cudaStream_t stream() const override { return stream_; }
  // A stack reports no gradients as its backward pass enqueues them: null is accepted, a hook
  // throws course::Error (a network that can report overrides this).
  void set_gradient_hook(GradientHook hook) override;
  // Every layer's buffers(), in layer order.
  std::vector<float> download_buffers() override;
  void upload_buffers(const std::vector<float>& values) override;
  // Device memory held by the network's buffers (activations, gradients, workspaces, parameters).
  size_t device_bytes() const { return device_bytes_; }

 protected:
  // The weight (offset 0) or bias (offset 1) of the layer `plan` describes, inside the store.
  ParamView param_view(const LayerPlan& plan, size_t offset);
  // What this network's layers are made with: max_batch and param_view.
  DeviceLayerContext layer_context();
  void add_layer(std::unique_ptr<DeviceLayer> layer) { layers_.push_back(std::move(layer)); }
  // Once every layer is in: counts device_bytes (extra_bytes: what the network holds besides).
  void layers_added(size_t extra_bytes);
  DeviceLoss& stack_loss() { return *loss_; }

  ModelSpec spec_;
  int max_batch_;
  ParameterStore params_;
  std::vector<std::unique_ptr<DeviceLayer>> layers_;

 private:
  std::unique_ptr<DeviceLoss> loss_;
  size_t device_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace framework
