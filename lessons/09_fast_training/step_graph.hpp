#pragma once
// Lesson 09, step 09.9: CUDA Graphs. A training step is about 20 small kernels; launched one by
// one, each costs the host a few microseconds and leaves the GPU a gap between kernels. A graph
// records the launches once and replays them with one call, the GPU going from kernel to kernel
// on its own.
//
// Capture does not run anything: every launch made on the stream between begin and end of the
// capture becomes a node of the graph, with its arguments as they are at that moment (pointers,
// sizes, the batch's first example). Replays run exactly those launches again, on the buffers'
// CURRENT contents: upload new data into the same buffers, replay, and the kernels see it.
#include <cuda_runtime.h>

#include <functional>

#include "course/stream.hpp"
#include "framework/device_choice.hpp"

namespace fast_training {

// ---- step 09.9 -----------------------------------------------------------------------------------
// Captures every launch `enqueue` makes on `stream` (which must not be the default stream: the
// legacy default stream cannot be captured) into a graph, and returns it: the caller owns it
// (cudaGraphDestroy). Nothing runs on the GPU. Throws course::CudaError when a launch in `enqueue`
// cannot be captured (e.g. it went to the default stream), and course::Error for a null stream;
// when `enqueue` throws, its exception passes on. In every case the stream is no longer capturing
// afterwards, and a graph that was not returned has been destroyed.
cudaGraph_t capture_step(cudaStream_t stream, const std::function<void()>& enqueue);

// ---- given -------------------------------------------------------------------------------------
// capture_step, then the graph instantiated (cudaGraphInstantiate) and the captured one destroyed:
// what the trainers replay (GraphExec::launch). The same errors as capture_step.
cudaGraphExec_t capture_graph(cudaStream_t stream, const std::function<void()>& enqueue);

// The launches `enqueue` makes on `stream`, captured once into a graph (capture_graph): returns
// what replays them there. The trainers hand it to the framework's run as its capture
// (framework::DeviceRun::capture).
std::function<void()> replayed(cudaStream_t stream, const std::function<void()>& enqueue);
// `replayed`, as the framework's layer-list trainers take it (framework::replay_steps).
framework::GraphReplay graph_replay();

// An instantiated graph, owned: capture_graph's result, destroyed with the object.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraphExec_t exec) : exec_(exec) {}
  ~GraphExec();
  GraphExec(GraphExec&& other) noexcept : exec_(other.exec_) { other.exec_ = nullptr; }
  GraphExec& operator=(GraphExec&& other) noexcept;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  // Replays every captured launch on `stream`, in order; returns without waiting for the GPU.
  void launch(cudaStream_t stream) const;
  bool empty() const { return exec_ == nullptr; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// A stream of its own, which a graph can capture (common/include/course/stream.hpp).
using course::Stream;

}  // namespace fast_training
