// Lesson 09, step 09.9: capture launches into a CUDA graph. YOUR FILE (step_graph.hpp says what
// capture_graph must do).
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "step_graph.hpp"

namespace fast_training {

cudaGraphExec_t capture_graph(cudaStream_t stream, const std::function<void()>& enqueue) {
  // TODO(09.9): refuse the default stream; begin capturing `stream` (cudaStreamBeginCapture,
  // mode cudaStreamCaptureModeGlobal); call enqueue(); end the capture (cudaStreamEndCapture)
  // into a cudaGraph_t; instantiate it (cudaGraphInstantiate) and destroy the cudaGraph_t. If
  // enqueue throws, end the capture anyway (drop what it captured) before passing the exception on.
  (void)stream, (void)enqueue;
  course::todo("09.9", "capture_graph");
}

}  // namespace fast_training
