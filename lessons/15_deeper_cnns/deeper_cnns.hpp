#pragma once
// Lesson 15: deeper CNNs. The contracts of every function you write.
#include <cstddef>

namespace deeper_cnns {

// A tensor x [N, C, H, W] normalised per channel: each channel's statistics run over its
// M = N * H * W values (every image of the batch, every pixel).
struct BatchNormShape {
  int batch = 1, channels = 1, height = 1, width = 1;
  size_t size() const { return size_t(batch) * channels * height * width; }  // values of x
  size_t per_channel() const { return size_t(batch) * height * width; }      // M
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

}  // namespace deeper_cnns
