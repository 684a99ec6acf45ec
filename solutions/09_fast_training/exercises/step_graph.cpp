// Lesson 09, step 09.9: capture launches into a CUDA graph (step_graph.hpp).
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "step_graph.hpp"

namespace fast_training {

cudaGraph_t capture_step(cudaStream_t stream, const std::function<void()>& enqueue) {
  if (stream == nullptr)
    throw course::Error("capture_step: the default stream cannot be captured; give a stream of your own");
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  try {
    enqueue();
  } catch (...) {
    // End the capture whatever happened, or the stream stays in capture mode and every later
    // launch on it fails. The half-captured graph is thrown away.
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();  // the capture's own error is not the one to report
    throw;
  }
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  return graph;
}

}  // namespace fast_training
