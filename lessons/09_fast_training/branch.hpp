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

}  // namespace fast_training
