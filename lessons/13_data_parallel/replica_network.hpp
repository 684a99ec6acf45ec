#pragma once
// Lesson 13 (given): what the data-parallel step needs of a network, whichever lesson built it
// (network_kinds.hpp: lesson 09's FastNetwork, or lesson 08's GpuNetwork of any layer list on
// lesson 12's layers). A rank's replica, 13.3's OverlappedBackward and the scaling study all talk to
// a network through this and nothing else.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

#include "evaluation.hpp"
#include "parameters.hpp"

namespace data_parallel {

class ReplicaNetwork {
 public:
  virtual ~ReplicaNetwork() = default;

  // forward, the loss on `labels` (device ints; row_loss() then holds each example's loss), then
  // backward: every gradient in parameters() fresh (overwritten). Every launch goes to stream().
  virtual void forward_backward(const float* x, const int* labels, int batch) = 0;

  // The backward pass, listened to: the hook is called while forward_backward ENQUEUES its launches,
  // once per layer with parameters and call, in backward order (the last layer first), after every
  // launch that writes that layer's dW and dbias (the tensors `weight` and weight + 1 of
  // parameters()) went to stream(). So an event recorded on stream() inside the hook marks that
  // layer's gradients done. nullptr: nobody listens.
  using GradientHook = std::function<void(size_t weight)>;
  virtual void set_gradient_hook(GradientHook hook) = 0;

  virtual cudaStream_t stream() const = 0;
  virtual mnist_gpu::ParameterStore& parameters() = 0;
  virtual size_t input_size() const = 0;  // values per example
  virtual const float* logits() = 0;      // of the last forward pass: batch x classes
  virtual const float* row_loss() = 0;    // of the last forward_backward: one loss per example
  // What lesson 08's evaluation runs: the forward pass and the loss (dropout off), batch by batch.
  virtual mnist_gpu::EvaluationTarget evaluation_target() = 0;
};

}  // namespace data_parallel
