#pragma once
// A CUDA stream of its own (not the default stream, so it can be captured into a graph), destroyed
// with the object. It synchronises with the default stream both ways, so code that uses the default
// stream (an upload, an evaluation) sees the stream's work done before it, and the stream sees
// theirs. And a launch on the default stream while this stream captures is an error, not a silent
// gap in the graph.
#include <cuda_runtime.h>

#include "course/cuda_check.hpp"

namespace course {

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreate(&stream_)); }  // blocking: ordered with the default stream
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace course
