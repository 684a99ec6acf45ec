#pragma once
// Lesson 14 (capstone): time to 99 %. Four pieces of a speedrun recipe, each on the CPU and (where
// it computes on the device) as a kernel; the given trainer (train_speedrun) puts them around any
// network lesson 12 can describe, captures the whole run into CUDA graphs and times it.
//
//   14.1 the one-cycle learning-rate schedule (host: the trainer asks it once per step)
//   14.2 softmax-cross-entropy with label smoothing, forward and backward in one pass
//   14.3 random translations of the training images, on the GPU
//   14.4 SGD with Nesterov momentum
//
// Device pointers for the *_gpu functions; every one of them runs on `stream` (default: the
// default stream) and returns without waiting for the GPU. Bad arguments throw course::Error
// before anything is written (the given check_* functions below, which host code and launchers
// share).
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstddef>
#include <cstdint>

namespace speedrun {

// ---- 14.1 one-cycle schedule -------------------------------------------------------------------
// The learning rate of step `step` (0 .. total_steps - 1) of a run: a straight line up to peak_lr
// over the first warmup_steps steps, then a straight line down that would reach 0 one step after
// the last, so that every step learns something:
//   step <  warmup_steps:  peak_lr * (step + 1) / warmup_steps
//   step >= warmup_steps:  peak_lr * (total_steps - step) / (total_steps - warmup_steps)
// Computed in double, returned as float. warmup_steps 0: no warm-up, the decay alone. Throws
// (check_one_cycle) unless total_steps >= 1, 0 <= warmup_steps < total_steps, peak_lr > 0 and
// finite, and 0 <= step < total_steps.
float one_cycle_lr(int step, int total_steps, int warmup_steps, float peak_lr);

// ---- 14.2 label smoothing ----------------------------------------------------------------------
// Softmax-cross-entropy against a smoothed target: the true class gets 1 - smoothing + smoothing / K,
// every other class smoothing / K (K = classes). For every row b of logits [batch x K], with
// p = softmax(z_b) computed from the row's maximum m (as 09.6):
//   row_loss[b]   = log(sum_k exp(z_k - m)) + m - (1 - smoothing) * z_y - (smoothing / K) * sum_k z_k
//                 ( = -(1 - smoothing) log p_y - (smoothing / K) sum_k log p_k )
//   dlogits[b][k] = (p_k - (1 - smoothing) * [k == y] - smoothing / K) / batch
// smoothing 0 gives 09.6's loss and gradient. A label outside 0 .. K-1 makes that row's loss and
// gradient NaN (the other rows are unaffected). batch 0 writes nothing. Throws
// (check_smoothing) unless 0 <= smoothing < 1, classes >= 1 and batch >= 0.
void smoothed_cross_entropy(const float* logits, const int* labels, float* row_loss, float* dlogits, int batch,
                            int classes, float smoothing);
void smoothed_cross_entropy_gpu(const float* logits, const int* labels, float* row_loss, float* dlogits, int batch,
                                int classes, float smoothing, cudaStream_t stream = nullptr);

// ---- 14.3 random translations --------------------------------------------------------------------
// Every image of a batch [batch x C x H x W] moved by its own (dy, dx), each in -max_shift ..
// max_shift, from example_shift(key, b, max_shift) (given, image_shift.hpp):
//   y[b][c][i][j] = x[b][c][i - dy][j - dx]   where 0 <= i - dy < H and 0 <= j - dx < W, else 0
// A copy, so the CPU and the GPU give the same bits. max_shift 0 copies x. x and y must not
// overlap. Throws (check_shift) unless batch, channels >= 0, height, width >= 1 and
// 0 <= max_shift < min(height, width).
void shift_images(const float* x, float* y, int batch, int channels, int height, int width, int max_shift,
                  uint64_t key);
void shift_images_gpu(const float* x, float* y, int batch, int channels, int height, int width, int max_shift,
                      uint64_t key, cudaStream_t stream = nullptr);

// ---- 14.4 Nesterov momentum --------------------------------------------------------------------
// PyTorch's torch.optim.SGD(nesterov=True), one step over n values, in place; for every i < n:
//   g           = grad[i] + weight_decay * w[i]
//   velocity[i] = momentum * velocity[i] + g
//   w[i]        = w[i] - lr * (g + momentum * velocity[i])      (the NEW velocity)
// velocity starts at 0; grad is only read. Throws (check_nesterov) unless lr > 0, 0 <= momentum < 1
// and weight_decay >= 0 (NaN fails each). On the GPU lr points to the rate in device memory, read
// when the kernel runs (as lesson 03's sgd_momentum_update); the launcher checks it is there
// (check_nesterov_gpu).
void nesterov_step(float* w, const float* grad, float* velocity, size_t n, float lr, float momentum,
                   float weight_decay);
void nesterov_update_gpu(float* w, const float* grad, float* velocity, size_t n, const float* lr, float momentum,
                         float weight_decay, cudaStream_t stream = nullptr);

// ---- given (argument_checks.cpp) ---------------------------------------------------------------------
// Each throws course::Error "<function>: <what> must be ..., got <value>" for the first bad argument.
void check_one_cycle(const char* function, int step, int total_steps, int warmup_steps, float peak_lr);
void check_smoothing(const char* function, int batch, int classes, float smoothing);
void check_shift(const char* function, int batch, int channels, int height, int width, int max_shift);
void check_nesterov(const char* function, float lr, float momentum, float weight_decay);
void check_nesterov_gpu(const char* function, const float* lr, size_t n, float momentum, float weight_decay);

}  // namespace speedrun
