#pragma once
// cuDNN's convolution, for the benchmarks (built when CMake finds cuDNN:
// COURSE_HAVE_CUDNN). FP32 data and FP32 FMA math: no tensor cores, no TF32, so it
// does the same arithmetic as the course's kernels. Legacy API: cudnnConvolutionForward,
// BackwardData, BackwardFilter, BackwardBias; algorithms picked by cudnnFind* (cuDNN
// times its candidates and the fastest FMA one is kept). Device pointers, default stream.
#include <cstddef>
#include <memory>
#include <string>

#include "host_layers.hpp"

namespace im2col_bench {

class CudnnConv {
 public:
  // Creates the handle and descriptors and picks the algorithms; throws course::Error
  // naming the cuDNN call that failed (e.g. when the library cannot be loaded).
  explicit CudnnConv(const host_layers::ConvShape& s);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // y = conv(x, W) + bias
  void forward(const float* x, const float* W, const float* bias, float* y);
  // dx, dW, dbias overwritten (beta = 0): backward_data, then backward_weight
  void backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias);
  void backward_data(const float* W, const float* dy, float* dx);
  void backward_weight(const float* x, const float* dy, float* dW, float* dbias);

  // Switches a pass to cuDNN's next-fastest FP32 algorithm, e.g. after the fastest one's results
  // failed a check (some FFT and Winograd variants round far more than a direct sum); false when
  // no candidate is left.
  enum class Pass { forward, backward_data, backward_weight };
  bool use_next_algorithm(Pass pass);

  size_t workspace_bytes() const;
  std::string algorithms() const;  // e.g. "fwd IMPLICIT_PRECOMP_GEMM (FMA), bwd-data ALGO_1 (FMA), ..."
  static std::string version();    // e.g. "cuDNN 9.19.0"

 private:
  void fit_workspace();
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace im2col_bench
