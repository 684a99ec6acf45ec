#pragma once
// The course framework: what one layer is, on the CPU and on the GPU alike, and the chain that runs
// a list of them. A layer owns the buffer it writes forward (its output) and the one it writes
// backward (the gradient of its input); the memory they live in is its backend's (HostLayer:
// host_layer.hpp, DeviceLayer: layer_stack.hpp). Every network of the course is a list of layers run
// by the two functions below: the GPU's LayerStack, the CPU's HostStack, and a residual block's body
// and shortcut inside either.
//
//   forward:   x --> layer 0 --> layer 1 --> ... --> layer L-1 --> output
//   backward: dx <-- layer 0 <-- layer 1 <-- ... <-- layer L-1 <-- dy
//
// Layer i's backward reads its forward's input again (x, or layer i - 1's output): each output stays
// in its own buffer until the next forward, so nothing is recomputed or copied.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/model.hpp"

namespace framework {

class ChainLayer {
 public:
  ChainLayer(std::string name, const LayerPlan& plan) : name_(std::move(name)), plan_(plan) {}
  virtual ~ChainLayer() = default;
  ChainLayer(const ChainLayer&) = delete;
  ChainLayer& operator=(const ChainLayer&) = delete;

  // x: batch examples of in_size() values -> output(): batch x out_size().
  virtual void forward(const float* x, int batch) = 0;
  // x: the same input as the forward pass before; dy = dL/d output(). Writes input_grad() = dL/dx
  // (batch x in_size()) and the layer's parameter gradients, OVERWRITING them: nothing is zeroed.
  virtual void backward(const float* x, const float* dy, int batch) = 0;
  virtual float* output() = 0;
  virtual float* input_grad() = 0;
  // Training (the start) or evaluation: only a layer that behaves differently (dropout, batch norm)
  // cares.
  virtual void set_training(bool training) { (void)training; }
  // A sequence network's rows are time-major, `steps` steps of batch / steps sequences each (an
  // LSTM's network, model.hpp): only a recurrent layer reads it, every other layer treats a row as
  // an example. Set before a pass, outside a CUDA graph's capture: a GPU layer sizes its buffers then.
  virtual void set_steps(int steps) { (void)steps; }

  const std::string& name() const { return name_; }
  const LayerPlan& plan() const { return plan_; }
  size_t in_size() const { return plan_.in_size(); }  // values per example
  size_t out_size() const { return plan_.out_size(); }

 protected:
  std::string name_;
  LayerPlan plan_;
};

// Every layer of `layers` told how many steps the next passes' sequences have (set_steps).
template <class LayerPtr>
void set_steps(const std::vector<LayerPtr>& layers, int steps) {
  for (const auto& layer : layers) layer->set_steps(steps);
}

// Every layer forward in order: layer 0 reads x, layer i the output of layer i - 1. Returns the last
// layer's output (x itself for an empty list: a residual block's identity shortcut).
template <class LayerPtr>
const float* chain_forward(const std::vector<LayerPtr>& layers, const float* x, int batch) {
  const float* in = x;
  for (const auto& layer : layers) {
    layer->forward(in, batch);
    in = layer->output();
  }
  return in;
}

// Every layer backward from the last, after chain_forward(layers, x, batch): layer i reads its input
// again and dL/d(its output) (dy for the last layer, layer i + 1's input_grad() before it). Returns
// dL/dx (dy itself for an empty list).
template <class LayerPtr>
const float* chain_backward(const std::vector<LayerPtr>& layers, const float* x, const float* dy, int batch) {
  for (size_t i = layers.size(); i-- > 0;) {
    layers[i]->backward(i == 0 ? x : layers[i - 1]->output(), dy, batch);
    dy = layers[i]->input_grad();
  }
  return dy;
}

}  // namespace framework
