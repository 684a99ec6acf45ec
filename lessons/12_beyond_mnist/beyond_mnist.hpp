#pragma once
// Lesson 12: beyond MNIST. New layers and a new optimizer, each on the CPU and on the GPU:
//
//   12.1 sigmoid and tanh, forward and backward     exercises/activations.cpp, activations.cu
//   12.2 dropout, forward and backward              exercises/dropout.cpp, dropout.cu
//   12.3 Adadelta, one step over n parameters       exercises/adadelta.cpp, adadelta.cu
//
// Host functions take host pointers. The *_gpu functions take DEVICE pointers, launch ONE kernel
// on `stream` (the default stream unless given), check the launch with CUDA_CHECK_LAUNCH and
// return without waiting for the GPU; n == 0 launches nothing. Their launchers are written for
// you (exercises/*.cu): you write the kernel bodies.
// Every function OVERWRITES its outputs (they may hold garbage, NaN included, before the call).
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>  // cudaStream_t

namespace beyond_mnist {

// ---- 12.1 sigmoid and tanh ---------------------------------------------------------------------
// The backward passes take the forward pass's OUTPUT y: that is all they need, since
// sigmoid'(x) = y (1 - y) and tanh'(x) = 1 - y^2, so a layer keeps nothing else.
//   sigmoid: y = 1 / (1 + exp(-x)), in [0, 1] for every finite x: never NaN or Inf, also for
//            |x| large (x = -1000 gives 0, x = +1000 gives 1)
//   tanh:    y = tanh(x), in [-1, 1]
//   backward: dx = dy * y * (1 - y) (sigmoid), dx = dy * (1 - y * y) (tanh)
void sigmoid_forward(const float* x, float* y, size_t n);
void sigmoid_backward(const float* y, const float* dy, float* dx, size_t n);
void tanh_forward(const float* x, float* y, size_t n);
void tanh_backward(const float* y, const float* dy, float* dx, size_t n);

void sigmoid_forward_gpu(const float* x, float* y, size_t n, cudaStream_t stream = nullptr);
void sigmoid_backward_gpu(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream = nullptr);
void tanh_forward_gpu(const float* x, float* y, size_t n, cudaStream_t stream = nullptr);
void tanh_backward_gpu(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream = nullptr);

// ---- 12.2 dropout ------------------------------------------------------------------------------
// "Inverted" dropout, as PyTorch's: element i is kept when dropout_keeps(key, i, rate)
// (dropout_mask.hpp), and with scale = dropout_scale(rate) = 1 / (1 - rate), computed in float,
//   forward:  y[i]  = keep ? x[i] * scale : 0
//   backward: dx[i] = keep ? dy[i] * scale : 0     (the mask recomputed from key: nothing stored)
// One float multiply per kept element, so the CPU and the GPU give the same bits.
// 0 <= rate < 1, else course::Error naming the function and the rate, thrown before anything is
// written (check_dropout_rate, given). rate 0 keeps everything: y == x exactly.
// key: dropout_key(seed, layer, step), a new mask for every layer and every training step.
void dropout_forward(const float* x, float* y, size_t n, float rate, uint64_t key);
void dropout_backward(const float* dy, float* dx, size_t n, float rate, uint64_t key);

// On the GPU the key lives in device memory: `key` points to ONE uint64_t there, which the kernel
// reads when it runs, not when it is launched. A CUDA graph (lesson 09) bakes in every argument of
// every launch; it stores this pointer, so a replayed training step draws the mask of whatever key
// was written there before it (lesson 12's dropout layer writes a new one every training step).
void dropout_forward_gpu(const float* x, float* y, size_t n, float rate, const uint64_t* key,
                         cudaStream_t stream = nullptr);
void dropout_backward_gpu(const float* dy, float* dx, size_t n, float rate, const uint64_t* key,
                          cudaStream_t stream = nullptr);

// Given (argument_checks.cpp): throws course::Error "<function>: the dropout rate must be in
// [0, 1), got <rate>" unless 0 <= rate < 1 (NaN included).
void check_dropout_rate(const char* function, float rate);

// ---- 12.3 Adadelta -----------------------------------------------------------------------------
// PyTorch's torch.optim.Adadelta, one step over n values, in place; for every i < n:
//   g             = grad[i] + weight_decay * w[i]          (weight_decay 0: the plain gradient)
//   square_avg[i] = rho * square_avg[i] + (1 - rho) * g * g
//   delta         = sqrt(delta_avg[i] + eps) / sqrt(square_avg[i] + eps) * g
//   delta_avg[i]  = rho * delta_avg[i] + (1 - rho) * delta * delta
//   w[i]          = w[i] - lr * delta
// delta uses the NEW square_avg and the OLD delta_avg. Both averages start at 0 (zero them before
// the first step); grad is only read. lr > 0, 0 <= rho <= 1 and eps > 0, else course::Error
// before anything is written (check_adadelta, given). On the GPU lr points to the rate in device
// memory, read when the kernel runs (as lesson 03's sgd_momentum_update); the launcher checks rho,
// eps and that lr is there (check_adadelta_gpu, given).
void adadelta_step(float* w, const float* grad, float* square_avg, float* delta_avg, size_t n, float lr, float rho,
                   float eps, float weight_decay);
void adadelta_update_gpu(float* w, const float* grad, float* square_avg, float* delta_avg, size_t n, const float* lr,
                         float rho, float eps, float weight_decay, cudaStream_t stream = nullptr);

// Given (argument_checks.cpp): throws course::Error naming `function` and the value unless
// lr > 0, 0 <= rho <= 1 and eps > 0 (NaN fails every one of them); the GPU's: unless 0 <= rho <= 1,
// eps > 0 and, with n > 0, lr is not null.
void check_adadelta(const char* function, float lr, float rho, float eps);
void check_adadelta_gpu(const char* function, const float* lr, size_t n, float rho, float eps);

}  // namespace beyond_mnist
