#pragma once
// Lesson 09, step 09.12: a training step is a graph of dependencies, not a line. A layer's weight
// gradient (dW, dbias) is read by nobody but the update: once its dy exists, it can run beside the
// input gradient that the layers before it wait for. Work on a second stream runs beside the
// first; an event recorded on one stream and waited for on the other is the only thing that orders
// them. Captured into a CUDA graph, each such wait becomes an edge: the graph then holds two
// branches, and the GPU runs their kernels side by side where the SMs have room.
//
//   main:  ... pool backward ──fork──> conv dx ──> pool backward ──> ... ──join──> update
//                              └─side: conv dW, dbias ──────────────────────┘
#include <cuda_runtime.h>

#include <cstddef>

#include "course/device_buffer.hpp"
#include "framework/gpu_trainer.hpp"  // CounterStream

namespace fast_training {

class Branch {
 public:
  // ---- given -------------------------------------------------------------------------------------
  // A side stream beside `main` (which must not be the default stream), and the two events that
  // order them. Like fast_training::Stream, the side stream synchronises with the default stream.
  explicit Branch(cudaStream_t main);
  ~Branch();
  Branch(const Branch&) = delete;
  Branch& operator=(const Branch&) = delete;
  cudaStream_t main() const { return main_; }
  cudaStream_t side() const { return side_; }

  // ---- step 09.12 --------------------------------------------------------------------------------
  // fork: whatever is enqueued on side() from now on runs after everything enqueued on main() so
  // far. join: whatever is enqueued on main() from now on runs after everything enqueued on side()
  // so far. Neither waits on the host: the GPU keeps the order (inside a capture, as graph edges).
  void fork();
  void join();

 private:
  cudaStream_t main_ = nullptr;
  cudaStream_t side_ = nullptr;
  cudaEvent_t forked_ = nullptr;  // recorded on main, waited for on side
  cudaEvent_t joined_ = nullptr;  // recorded on side, waited for on main
};

// Given: where a layer's weight gradient goes. With a branch (its main stream must be the layer's),
// it is forked onto the side stream, with a workspace of its own (two kernels that run at once must
// not share scratch memory), when an input gradient follows it on the layer's stream; else it stays
// on the layer's stream with the layer's workspace (the first layer's weight gradient is the
// backward's last work: on the side it would only queue behind the others). The fast network uses
// it, and so can any layer that runs on its kernels.
class WeightGradientAside {
 public:
  // branch: nullptr for none. workspace_floats: the side's workspace (allocated here, not in a step).
  void use(Branch* branch, cudaStream_t layer_stream, size_t workspace_floats);
  bool active() const { return branch_ != nullptr; }
  struct Target {
    cudaStream_t stream;
    float* workspace;
  };
  // Forks the branch when the gradient goes aside: dy and the layer's input are enqueued by then.
  Target target(cudaStream_t layer_stream, float* layer_workspace, bool input_gradient_follows);

 private:
  Branch* branch_ = nullptr;
  course::DeviceBuffer<float> side_workspace_;
};

// Given: the step's counters beside the update, on `branch` (which must outlive the training). The
// weight gradients are done once the main stream joins the side; then the counters go aside (they
// read the loss and the logits, the update the gradients). The next step's forward writes what the
// counters read: the trainer joins again after the update.
framework::CounterStream counters_aside(Branch& branch);

}  // namespace fast_training
