// Lesson 08, step 08.4: the evaluation kernels. Predictions and the count of right answers, and
// the loss added up on the device with a flag for the first step whose loss is NaN or Inf.
// YOUR FILE: write the two kernel bodies marked TODO(08.4). The launchers are written for you.
// README "08.4 hint" if you are stuck.
#include <cmath>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

namespace {

constexpr int kThreads = 256;  // a power of two: the reductions halve it

// Launched with ceil(batch / kThreads) blocks of kThreads threads.
__global__ void predict_count_kernel(const float* __restrict__ logits, const int* __restrict__ labels, int batch,
                                     int classes, int* __restrict__ predictions, int* __restrict__ correct) {
  // TODO(08.4): thread b = blockIdx.x * blockDim.x + threadIdx.x owns row b < batch:
  // predictions[b] = the FIRST index of the largest of logits[b][0..classes) (lesson 01's tie
  // rule). *correct += the number of rows with predictions[b] == labels[b]: it ADDS (several
  // blocks, several calls), so the blocks' additions must not race (one atomicAdd per block).
  (void)logits, (void)labels, (void)batch, (void)classes, (void)predictions, (void)correct;
}

// Launched with ONE block of kThreads threads.
__global__ void accumulate_loss_kernel(const float* __restrict__ row_loss, int batch, int step,
                                       double* __restrict__ loss_sum, int* __restrict__ bad_step) {
  // TODO(08.4): *loss_sum += row_loss[0] + ... + row_loss[batch - 1], added in double (batch may
  // exceed blockDim.x). When that sum is NaN or Inf and *bad_step < 0: *bad_step = step (the FIRST
  // bad step is kept). One writer for *loss_sum and *bad_step.
  (void)row_loss, (void)batch, (void)step, (void)loss_sum, (void)bad_step;
}

void check_batch(const char* what, int batch) {
  if (batch < 0) throw course::Error(std::string(what) + ": batch must be >= 0, got " + std::to_string(batch));
}

}  // namespace

void predict_and_count(const float* logits, const int* labels, int batch, int classes, int* predictions,
                       int* correct, cudaStream_t stream) {
  check_batch("predict_and_count", batch);
  if (classes < 1) throw course::Error("predict_and_count: classes must be >= 1, got " + std::to_string(classes));
  if (batch == 0) return;
  predict_count_kernel<<<(batch + kThreads - 1) / kThreads, kThreads, 0, stream>>>(logits, labels, batch, classes,
                                                                                     predictions, correct);
  CUDA_CHECK_LAUNCH();
}

void accumulate_loss(const float* row_loss, int batch, int step, double* loss_sum, int* bad_step,
                     cudaStream_t stream) {
  check_batch("accumulate_loss", batch);
  if (batch == 0) return;
  accumulate_loss_kernel<<<1, kThreads, 0, stream>>>(row_loss, batch, step, loss_sum, bad_step);
  CUDA_CHECK_LAUNCH();
}

}  // namespace mnist_gpu
