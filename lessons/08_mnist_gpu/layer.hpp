#pragma once
// What every layer of the GPU network shares (as in DLFS's layers.py): a forward, a backward,
// and the device buffers they write, sized once for the largest batch so that a training step
// allocates nothing. Each kind of layer has its own header (conv_layer.hpp, relu_layer.hpp,
// maxpool_layer.hpp, dense_layer.hpp) and its passes in its own exercise file.
//
//   layer i:  forward(x, batch)        reads x (the previous layer's output, or the input batch)
//                                      writes output()                   [batch x out_size]
//             backward(x, dy, batch)   reads the same x and dy = dL/d output()
//                                      writes input_grad() = dL/dx       [batch x in_size]
//                                      and, for conv and dense, the parameter gradients
//
// Backward passes OVERWRITE what they write (as lesson 01's do), so nothing is zeroed per step.
// Rows past `batch` (the buffers hold max_batch rows) are neither read nor written.
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstddef>
#include <string>

#include "course/device_buffer.hpp"
#include "framework/pass_profile.hpp"
#include "host_training.hpp"

namespace mnist_gpu {

// Told when a pass of a layer or of the loss starts (the framework's: --profile records a CUDA event
// there, so it times the network's own forward_backward). Every pass opens with check_batch, which
// tells it; without an observer (training) that costs one null test.
using PassObserver = framework::PassObserver;

class Layer {
 public:
  Layer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  virtual void forward(const float* x, int batch) = 0;
  virtual void backward(const float* x, const float* dy, int batch) = 0;

  const std::string& name() const { return name_; }
  const host_training::LayerPlan& plan() const { return plan_; }
  int max_batch() const { return max_batch_; }
  float* output() { return out_.data(); }
  const float* output() const { return out_.data(); }
  float* input_grad() { return din_.data(); }
  size_t in_size() const { return plan_.in_size(); }    // values per example
  size_t out_size() const { return plan_.out_size(); }
  void set_observer(PassObserver* observer) { observer_ = observer; }  // nullptr: none
  // Training or evaluation: only a layer that behaves differently (dropout) cares.
  virtual void set_training(bool training) { (void)training; }
  // Which kernels a layer plugged in runs (e.g. "tiled"), for the trainer's first lines;
  // "" for this lesson's layers (ConvLayer says it through algorithm()).
  virtual std::string kernels() const { return ""; }
  // Device memory a layer holds besides its output and input-gradient buffers (a layer plugged
  // in, with its own workspace); for GpuNetwork::device_bytes.
  virtual size_t own_bytes() const { return 0; }
  // Whether the layer's passes go to the stream set_stream gives it. This lesson's layers launch
  // on the default stream, which a CUDA graph cannot capture; layers plugged in may launch on
  // their stream, so that whole training steps can be captured into a graph.
  virtual bool runs_on_stream() const { return false; }
  void set_stream(cudaStream_t stream) { stream_ = stream; }

 protected:
  // 1 <= batch <= max_batch, else throws course::Error ("<name> forward: batch 0 outside 1..128");
  // what: "forward" or "backward". Tells the observer first.
  void check_batch(int batch, const char* what) const;

  std::string name_;
  host_training::LayerPlan plan_;
  int max_batch_;
  course::DeviceBuffer<float> out_, din_;
  PassObserver* observer_ = nullptr;
  cudaStream_t stream_ = nullptr;  // honoured by the layers whose runs_on_stream() is true
};

// A parameter tensor's value and gradient inside the ParameterStore (parameters.hpp).
struct ParamView {
  float* value = nullptr;
  float* grad = nullptr;
};

}  // namespace mnist_gpu
