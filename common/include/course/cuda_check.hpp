#pragma once
// Every CUDA runtime call and every kernel launch is checked: a failure
// throws course::CudaError naming the call, the file and the line.
#include <cuda_runtime.h>

#include "course/error.hpp"

namespace course {

class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& message) : Error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace course

// Wrap a runtime call: CUDA_CHECK(cudaMemcpy(...));
#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t course_err_ = (call);                                             \
    if (course_err_ != cudaSuccess)                                               \
      ::course::throw_cuda_error(course_err_, #call, __FILE__, __LINE__);         \
  } while (0)

// Right after a kernel launch: reports a bad launch configuration at once
// (it does not wait for the kernel; errors inside it show at the next sync).
#define CUDA_CHECK_LAUNCH()                                                       \
  do {                                                                            \
    cudaError_t course_err_ = cudaGetLastError();                                 \
    if (course_err_ != cudaSuccess)                                               \
      ::course::throw_cuda_error(course_err_, "kernel launch", __FILE__, __LINE__); \
  } while (0)
