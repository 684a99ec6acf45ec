// Lesson 09 (given): the owners of a graph and of a stream (step_graph.hpp). Capturing is step
// 09.9 (exercises/step_graph.cpp).
#include "course/cuda_check.hpp"
#include "step_graph.hpp"

namespace fast_training {

GraphExec::~GraphExec() {
  if (exec_) cudaGraphExecDestroy(exec_);
}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
  if (this != &other) {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = other.exec_;
    other.exec_ = nullptr;
  }
  return *this;
}

void GraphExec::launch(cudaStream_t stream) const {
  if (!exec_) throw course::Error("GraphExec::launch: no graph (capture_graph returned none)");
  CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

// A blocking stream: work on the default stream (copies, lesson 08's evaluation kernels) waits
// for it and it for them, as if everything ran on one stream.
Stream::Stream() { CUDA_CHECK(cudaStreamCreate(&stream_)); }
Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}

}  // namespace fast_training
