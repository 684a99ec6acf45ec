#pragma once
// Lesson 08: the whole training loop on the GPU, built from the kernels of lessons 03-07.
// Plain C++ header: the kernels live in exercises/*.cu.
//
//   08.1 the layers, one file each (conv_layer.hpp ... softmax_cross_entropy.hpp)
//   08.2 adam_update        Adam as one kernel over ALL parameters (one launch per step)
//   08.3 gather_batch       a minibatch picked on the device: images and labels by index
//   08.4 predict_and_count  argmax per row and the number of right answers
//        accumulate_loss    the step's loss added up on the device, with a NaN/Inf flag
//
// Every pointer is a DEVICE pointer. Every function launches on `stream` (the default stream
// unless given, so that whole training steps can be captured into a CUDA graph on a stream),
// checks the launch with CUDA_CHECK_LAUNCH and returns without waiting for the GPU: a training step
// never makes the host wait, so the host can queue the next step while the GPU runs this one.
// Bad arguments (negative sizes, a range outside the order) throw course::Error.
#include <cstddef>

#include <cuda_runtime_api.h>  // cudaStream_t

namespace mnist_gpu {

// ---- 08.2 Adam -------------------------------------------------------------------------------
// The formulas of lesson 02's host_training::adam_step (and of torch.optim.Adam), for every i < n:
//   g    = grad[i] + weight_decay * w[i]          (weight_decay 0: the plain gradient)
//   m[i] = beta1 * m[i] + (1 - beta1) * g
//   v[i] = beta2 * v[i] + (1 - beta2) * g * g
//   w[i] = w[i] - (*lr) * (m[i] / (1 - beta1^t)) / (sqrt(v[i] / (1 - beta2^t)) + eps)
// t = 1, 2, ... is the number of the step (t < 1 throws). The two bias corrections are computed
// once on the host, in double, as lesson 02 does, and passed to the kernel. lr points to one float
// in device memory, read when the kernel runs (as lesson 03's sgd_momentum_update).
void adam_update(float* w, const float* grad, float* m, float* v, size_t n, const float* lr, float beta1,
                 float beta2, float eps, float weight_decay, int t, cudaStream_t stream = nullptr);

// ---- 08.3 minibatch gather -----------------------------------------------------------------------
// The data set lives on the GPU: images [n x per_example] floats, labels [n] ints. order [n] is
// the epoch's order (host_training::epoch_order, uploaded once per epoch). For j < count:
//   x[j * per_example + e] = images[order[first + j] * per_example + e]
//   batch_labels[j]        = labels[order[first + j]]
// An index in order outside 0..n-1 gives that example NaN pixels and label -1 (so the loss turns
// NaN and training stops) instead of reading out of bounds. Needs 0 <= first, first + count <= n.
void gather_batch(const float* images, const int* labels, int n, int per_example, const int* order, int first,
                  int count, float* x, int* batch_labels, cudaStream_t stream = nullptr);

// ---- 08.4 evaluation on the device ---------------------------------------------------------------
// predictions[b] = the index of the largest of logits[b][0..classes) (the FIRST one on ties, as
// lesson 01 and std::max_element), for b < batch; *correct += the number of b with
// predictions[b] == labels[b]. *correct accumulates: zero it before the first batch.
void predict_and_count(const float* logits, const int* labels, int batch, int classes, int* predictions,
                       int* correct, cudaStream_t stream = nullptr);

// *loss_sum += row_loss[0] + ... + row_loss[batch - 1], added up in double (the SUM, not the mean:
// divide by the number of examples at the end). When that batch sum is NaN or Inf and *bad_step
// is still negative, *bad_step = step: the host reads it at its next report and stops with
// "loss became NaN at step K". Start with *loss_sum = 0 and *bad_step = -1.
void accumulate_loss(const float* row_loss, int batch, int step, double* loss_sum, int* bad_step,
                     cudaStream_t stream = nullptr);

}  // namespace mnist_gpu
