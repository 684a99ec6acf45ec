// cuDNN convolution wrapper for the lesson 07 benchmark (see cudnn_conv.hpp).
#include "cudnn_conv.hpp"

#include <cudnn.h>

#include <algorithm>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/error.hpp"

namespace im2col_bench {

namespace {

void check(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw course::Error(std::string("cuDNN: ") + call + " failed: " + cudnnGetErrorString(status));
}
#define CUDNN_CALL(call) check((call), #call)

bool is_fp32_math(cudnnMathType_t m) { return m == CUDNN_FMA_MATH || m == CUDNN_DEFAULT_MATH; }

const char* math_name(cudnnMathType_t m) { return m == CUDNN_FMA_MATH ? "FMA" : "default math"; }

// Algorithm names, in the order of cuDNN's enums.
std::string name_of(cudnnConvolutionFwdAlgo_t a) {
  static const char* names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 8 ? names[i] : "algo " + std::to_string(i);
}
std::string name_of(cudnnConvolutionBwdDataAlgo_t a) {
  static const char* names[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 6 ? names[i] : "algo " + std::to_string(i);
}
std::string name_of(cudnnConvolutionBwdFilterAlgo_t a) {
  static const char* names[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 7 ? names[i] : "algo " + std::to_string(i);
}

// Of cuDNN's candidates (fastest first), those that ran and use FP32 arithmetic, in the order
// they are tried: FMA math first, then "default" math (accepted only after every FMA variant).
template <typename Perf>
std::vector<Perf> fp32_candidates(const std::vector<Perf>& results, int count, const char* what) {
  std::vector<Perf> ordered;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < count; ++i) {
      const Perf& r = results[i];
      if (r.status != CUDNN_STATUS_SUCCESS || !is_fp32_math(r.mathType)) continue;
      if ((pass == 0) != (r.mathType == CUDNN_FMA_MATH)) continue;
      ordered.push_back(r);
    }
  if (ordered.empty()) throw course::Error(std::string("cuDNN: no FP32 algorithm for ") + what);
  return ordered;
}

}  // namespace

struct CudnnConv::State {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x_desc = nullptr, y_desc = nullptr, bias_desc = nullptr;
  cudnnFilterDescriptor_t w_desc = nullptr;
  cudnnConvolutionDescriptor_t fwd_conv = nullptr, bwd_data_conv = nullptr, bwd_filter_conv = nullptr;
  cudnnConvolutionFwdAlgoPerf_t fwd{};
  cudnnConvolutionBwdDataAlgoPerf_t bwd_data{};
  cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter{};
  // Every FP32 candidate of each pass, and which one is in use (use_next_algorithm).
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd_all;
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bwd_data_all;
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bwd_filter_all;
  size_t fwd_used = 0, bwd_data_used = 0, bwd_filter_used = 0;
  course::DeviceBuffer<unsigned char> workspace;

  ~State() {
    if (fwd_conv) cudnnDestroyConvolutionDescriptor(fwd_conv);
    if (bwd_data_conv) cudnnDestroyConvolutionDescriptor(bwd_data_conv);
    if (bwd_filter_conv) cudnnDestroyConvolutionDescriptor(bwd_filter_conv);
    if (w_desc) cudnnDestroyFilterDescriptor(w_desc);
    if (bias_desc) cudnnDestroyTensorDescriptor(bias_desc);
    if (y_desc) cudnnDestroyTensorDescriptor(y_desc);
    if (x_desc) cudnnDestroyTensorDescriptor(x_desc);
    if (handle) cudnnDestroy(handle);
  }
};

CudnnConv::CudnnConv(const host_layers::ConvShape& s) : st_(new State) {
  State& t = *st_;
  CUDNN_CALL(cudnnCreate(&t.handle));
  CUDNN_CALL(cudnnCreateTensorDescriptor(&t.x_desc));
  CUDNN_CALL(cudnnCreateTensorDescriptor(&t.y_desc));
  CUDNN_CALL(cudnnCreateTensorDescriptor(&t.bias_desc));
  CUDNN_CALL(cudnnCreateFilterDescriptor(&t.w_desc));
  CUDNN_CALL(cudnnSetTensor4dDescriptor(t.x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.batch, s.in_channels,
                                        s.height, s.width));
  CUDNN_CALL(cudnnSetTensor4dDescriptor(t.y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.batch, s.out_channels,
                                        s.out_h(), s.out_w()));
  CUDNN_CALL(cudnnSetTensor4dDescriptor(t.bias_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, s.out_channels, 1, 1));
  CUDNN_CALL(cudnnSetFilter4dDescriptor(t.w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.out_channels,
                                        s.in_channels, s.kernel_h, s.kernel_w));
  // One descriptor per pass: each gets the math type of the algorithm picked for it.
  for (cudnnConvolutionDescriptor_t* conv : {&t.fwd_conv, &t.bwd_data_conv, &t.bwd_filter_conv}) {
    CUDNN_CALL(cudnnCreateConvolutionDescriptor(conv));
    // Cross-correlation (no kernel flip), as in lesson 01 and every DL library.
    CUDNN_CALL(cudnnSetConvolution2dDescriptor(*conv, s.pad, s.pad, s.stride, s.stride, 1, 1,
                                               CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CALL(cudnnSetConvolutionMathType(*conv, CUDNN_FMA_MATH));  // no tensor cores / TF32
  }

  int max_count = 0, count = 0;
  CUDNN_CALL(cudnnGetConvolutionForwardAlgorithmMaxCount(t.handle, &max_count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(max_count);
  CUDNN_CALL(cudnnFindConvolutionForwardAlgorithm(t.handle, t.x_desc, t.w_desc, t.fwd_conv, t.y_desc, max_count,
                                                  &count, fwd.data()));
  t.fwd_all = fp32_candidates(fwd, count, "forward");
  t.fwd = t.fwd_all[0];

  CUDNN_CALL(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(t.handle, &max_count));
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data(max_count);
  CUDNN_CALL(cudnnFindConvolutionBackwardDataAlgorithm(t.handle, t.w_desc, t.y_desc, t.bwd_data_conv, t.x_desc,
                                                       max_count, &count, data.data()));
  t.bwd_data_all = fp32_candidates(data, count, "backward data");
  t.bwd_data = t.bwd_data_all[0];

  CUDNN_CALL(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(t.handle, &max_count));
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter(max_count);
  CUDNN_CALL(cudnnFindConvolutionBackwardFilterAlgorithm(t.handle, t.x_desc, t.y_desc, t.bwd_filter_conv, t.w_desc,
                                                         max_count, &count, filter.data()));
  t.bwd_filter_all = fp32_candidates(filter, count, "backward filter");
  t.bwd_filter = t.bwd_filter_all[0];

  CUDNN_CALL(cudnnSetConvolutionMathType(t.fwd_conv, t.fwd.mathType));
  CUDNN_CALL(cudnnSetConvolutionMathType(t.bwd_data_conv, t.bwd_data.mathType));
  CUDNN_CALL(cudnnSetConvolutionMathType(t.bwd_filter_conv, t.bwd_filter.mathType));

  fit_workspace();
}

// Grows the workspace to what the algorithms in use need.
void CudnnConv::fit_workspace() {
  State& t = *st_;
  size_t bytes = 0, need = 0;
  CUDNN_CALL(cudnnGetConvolutionForwardWorkspaceSize(t.handle, t.x_desc, t.w_desc, t.fwd_conv, t.y_desc,
                                                     t.fwd.algo, &need));
  bytes = std::max(bytes, need);
  CUDNN_CALL(cudnnGetConvolutionBackwardDataWorkspaceSize(t.handle, t.w_desc, t.y_desc, t.bwd_data_conv, t.x_desc,
                                                          t.bwd_data.algo, &need));
  bytes = std::max(bytes, need);
  CUDNN_CALL(cudnnGetConvolutionBackwardFilterWorkspaceSize(t.handle, t.x_desc, t.y_desc, t.bwd_filter_conv,
                                                            t.w_desc, t.bwd_filter.algo, &need));
  bytes = std::max(bytes, need);
  if (bytes > t.workspace.bytes()) t.workspace = course::DeviceBuffer<unsigned char>(bytes);
}

bool CudnnConv::use_next_algorithm(Pass pass) {
  State& t = *st_;
  switch (pass) {
    case Pass::forward:
      if (++t.fwd_used >= t.fwd_all.size()) return false;
      t.fwd = t.fwd_all[t.fwd_used];
      CUDNN_CALL(cudnnSetConvolutionMathType(t.fwd_conv, t.fwd.mathType));
      break;
    case Pass::backward_data:
      if (++t.bwd_data_used >= t.bwd_data_all.size()) return false;
      t.bwd_data = t.bwd_data_all[t.bwd_data_used];
      CUDNN_CALL(cudnnSetConvolutionMathType(t.bwd_data_conv, t.bwd_data.mathType));
      break;
    case Pass::backward_weight:
      if (++t.bwd_filter_used >= t.bwd_filter_all.size()) return false;
      t.bwd_filter = t.bwd_filter_all[t.bwd_filter_used];
      CUDNN_CALL(cudnnSetConvolutionMathType(t.bwd_filter_conv, t.bwd_filter.mathType));
      break;
  }
  fit_workspace();
  return true;
}

CudnnConv::~CudnnConv() = default;

void CudnnConv::forward(const float* x, const float* W, const float* bias, float* y) {
  State& t = *st_;
  const float one = 1.0f, zero = 0.0f;
  CUDNN_CALL(cudnnConvolutionForward(t.handle, &one, t.x_desc, x, t.w_desc, W, t.fwd_conv, t.fwd.algo,
                                     t.workspace.data(), t.workspace.bytes(), &zero, t.y_desc, y));
  CUDNN_CALL(cudnnAddTensor(t.handle, &one, t.bias_desc, bias, &one, t.y_desc, y));
}

void CudnnConv::backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias) {
  backward_data(W, dy, dx);
  backward_weight(x, dy, dW, dbias);
}

void CudnnConv::backward_data(const float* W, const float* dy, float* dx) {
  State& t = *st_;
  const float one = 1.0f, zero = 0.0f;
  CUDNN_CALL(cudnnConvolutionBackwardData(t.handle, &one, t.w_desc, W, t.y_desc, dy, t.bwd_data_conv,
                                          t.bwd_data.algo, t.workspace.data(), t.workspace.bytes(), &zero,
                                          t.x_desc, dx));
}

void CudnnConv::backward_weight(const float* x, const float* dy, float* dW, float* dbias) {
  State& t = *st_;
  const float one = 1.0f, zero = 0.0f;
  CUDNN_CALL(cudnnConvolutionBackwardFilter(t.handle, &one, t.x_desc, x, t.y_desc, dy, t.bwd_filter_conv,
                                            t.bwd_filter.algo, t.workspace.data(), t.workspace.bytes(), &zero,
                                            t.w_desc, dW));
  CUDNN_CALL(cudnnConvolutionBackwardBias(t.handle, &one, t.y_desc, dy, &zero, t.bias_desc, dbias));
}

size_t CudnnConv::workspace_bytes() const { return st_->workspace.bytes(); }

std::string CudnnConv::algorithms() const {
  const State& t = *st_;
  return "fwd " + name_of(t.fwd.algo) + " (" + math_name(t.fwd.mathType) + "), bwd-data " +
         name_of(t.bwd_data.algo) + " (" + math_name(t.bwd_data.mathType) + "), bwd-filter " +
         name_of(t.bwd_filter.algo) + " (" + math_name(t.bwd_filter.mathType) + ")";
}

std::string CudnnConv::version() {
  const size_t v = cudnnGetVersion();  // major*10000 + minor*100 + patch (cuDNN 9)
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace im2col_bench
