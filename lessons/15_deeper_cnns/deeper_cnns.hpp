#pragma once
// Lesson 15: deeper CNNs. The contracts of every function you write.
#include <cuda_runtime.h>

#include <cstddef>


#if defined(__CUDACC__)
#define DEEPER_CNNS_HOST_DEVICE __host__ __device__
#else
#define DEEPER_CNNS_HOST_DEVICE
#endif

namespace deeper_cnns {

// A tensor x [N, C, H, W] normalised per channel: each channel's statistics run over its
// M = N * H * W values (every image of the batch, every pixel).
struct BatchNormShape {
  int batch = 1, channels = 1, height = 1, width = 1;
  DEEPER_CNNS_HOST_DEVICE size_t size() const { return size_t(batch) * channels * height * width; }  // values of x
  DEEPER_CNNS_HOST_DEVICE size_t per_channel() const { return size_t(batch) * height * width; }      // M
  // Where value i (0 <= i < M) of channel c lives in x: image i / (H * W), pixel i % (H * W).
  DEEPER_CNNS_HOST_DEVICE size_t at(int c, size_t i) const {
    const size_t plane = size_t(height) * width;
    return (i / plane * channels + c) * plane + i % plane;
  }
};

// Throws course::Error naming `function` unless every size is >= 1, eps > 0 (finite) and
// 0 <= momentum <= 1; with `training`, also unless M >= 2 (one value has no variance). Given.
void check_batch_norm(const char* function, const BatchNormShape& s, double eps, double momentum, bool training);

// ---- 15.1 batch normalisation on the CPU -------------------------------------------------------
// Training (PyTorch's BatchNorm2d, train()): per channel c, over its M values,
//   mean[c] = sum x / M            var[c] = sum (x - mean[c])^2 / M      (biased: divided by M)
//   inv_std[c] = 1 / sqrt(var[c] + eps)
//   xhat = (x - mean[c]) * inv_std[c]          y = gamma[c] * xhat + beta[c]
// saved_mean and saved_inv_std [C] keep mean and inv_std for the backward pass. The running
// statistics move toward the batch's, with the UNBIASED variance (divided by M - 1):
//   running_mean = (1 - momentum) * running_mean + momentum * mean
//   running_var  = (1 - momentum) * running_var  + momentum * var * M / (M - 1)
// Every y, saved_mean and saved_inv_std is written; x, gamma and beta are only read. Checks first
// (check_batch_norm with training = true): nothing is written when they throw.
template <typename T>
void batch_norm_forward_train(const BatchNormShape& s, const T* x, const T* gamma, const T* beta, T eps, T momentum,
                              T* y, T* saved_mean, T* saved_inv_std, T* running_mean, T* running_var);

// Evaluation (eval()): the running statistics instead of the batch's, nothing updated:
//   y = gamma[c] * (x - running_mean[c]) / sqrt(running_var[c] + eps) + beta[c]
template <typename T>
void batch_norm_forward_eval(const BatchNormShape& s, const T* x, const T* gamma, const T* beta,
                             const T* running_mean, const T* running_var, T eps, T* y);

// The training pass's gradients, from dy = dL/dy and what the forward pass saved (x is its input):
//   dbeta[c]  = sum dy                  dgamma[c] = sum dy * xhat
//   dx = gamma[c] * inv_std[c] * (dy - dbeta[c] / M - xhat * dgamma[c] / M)
// (the mean and the variance depend on every x of the channel: dx is not gamma * inv_std * dy).
// dx, dgamma and dbeta are overwritten. Checks first (check_batch_norm, training).
template <typename T>
void batch_norm_backward(const BatchNormShape& s, const T* x, const T* dy, const T* gamma, const T* saved_mean,
                         const T* saved_inv_std, T* dx, T* dgamma, T* dbeta);

// ---- 15.2 batch normalisation on the GPU ----------------------------------------------------------
// 15.1's passes in float on the device, and a ReLU fused after y where `relu` is true:
//   y = max(0, gamma * xhat + beta)
// The statistics of a channel come from ONE BLOCK of kThreads threads: each thread sums its share of
// the channel's M values, the block adds the threads' sums (block_sum), and as on the CPU the mean
// comes first and the squares around it second. The backward pass takes `relu_y`, the fused forward
// pass's output, to mask dy where the ReLU let nothing through (relu_y <= 0), or null: no ReLU.
// Outputs as 15.1's, all written; every launch on `stream`; the launchers check first
// (check_batch_norm) and launch nothing when the check throws.
constexpr int kThreads = 256;  // a block: one channel's statistics
void batch_norm_forward_train_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                  float eps, float momentum, bool relu, float* y, float* saved_mean,
                                  float* saved_inv_std, float* running_mean, float* running_var,
                                  cudaStream_t stream = nullptr);
void batch_norm_forward_eval_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                 const float* running_mean, const float* running_var, float eps, bool relu, float* y,
                                 cudaStream_t stream = nullptr);
void batch_norm_backward_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                             const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                             float* dgamma, float* dbeta, cudaStream_t stream = nullptr);

}  // namespace deeper_cnns
