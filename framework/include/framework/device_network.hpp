#pragma once
// The course framework: a network on the GPU, as every GPU trainer, the test-set evaluation and a
// data-parallel replica see it. Lesson 08's GpuNetwork (any layer list) and lesson 09's FastNetwork
// (fused kernels) both are one, so whatever trains, evaluates or replicates one trains the other.
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstddef>
#include <functional>
#include <vector>

#include "framework/parameter_store.hpp"

namespace framework {

class DeviceNetwork {
 public:
  virtual ~DeviceNetwork() = default;

  // x: batch x C x H x W on the device, labels: batch ints on the device. Forward, the loss
  // (row_loss() then holds each example's), backward: every gradient in parameters() is fresh
  // (overwritten). Every launch goes to stream().
  virtual void forward_backward(const float* x, const int* labels, int batch) = 0;
  // Forward and the loss only (the test set's evaluation): logits() and row_loss() hold the results.
  virtual void forward_and_loss(const float* x, const int* labels, int batch) = 0;

  virtual const float* logits() = 0;    // of the last forward pass: batch x classes
  virtual const float* row_loss() = 0;  // of the last pass with a loss: one per example
  virtual ParameterStore& parameters() = 0;
  virtual cudaStream_t stream() const = 0;  // nullptr: the default stream
  virtual size_t input_size() const = 0;    // values per example (C*H*W)
  virtual int classes() const = 0;
  virtual int max_batch() const = 0;
  // Training (true, the start) or evaluation: only a network with dropout behaves differently.
  virtual void set_training(bool training) { (void)training; }
  // What a training pass changes beside the parameters and the optimizer's state (batch norm's
  // running statistics), as one host array: taken before profiled steps and put back after them,
  // so that profiling changes nothing. Empty for a network without such state.
  virtual std::vector<float> download_buffers() { return {}; }
  virtual void upload_buffers(const std::vector<float>& values) { (void)values; }

  // The backward pass, listened to: the hook is called while forward_backward ENQUEUES its
  // launches, once per layer with parameters and call, in backward order (the last layer first),
  // right after every launch that writes that layer's dW and dbias (the tensors `weight` and
  // weight + 1 of parameters()) went to stream(). So an event recorded on stream() inside the hook
  // marks that layer's gradients done (a data-parallel replica starts their all-reduce there).
  // nullptr: nobody listens. A network that cannot report throws course::Error for a hook.
  using GradientHook = std::function<void(size_t weight)>;
  virtual void set_gradient_hook(GradientHook hook) = 0;
};

}  // namespace framework
