// Lesson 08, step 08.3: the evaluation kernels. Predictions and the count of right answers, and
// the loss added up on the device with a flag for the first step whose loss is NaN or Inf.
// YOUR FILE: write the two kernel bodies marked TODO(08.3). The launchers are written for you.
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
  // TODO(08.3): thread -> row b = blockIdx.x * blockDim.x + threadIdx.x. For b < batch:
  //   predictions[b] = the FIRST index of the largest logits[b * classes + c] (replace only when
  //   strictly greater, as lesson 01), hit = (predictions[b] == labels[b]).
  // Then count the block's hits in a __shared__ int[kThreads] with a tree (every thread takes
  // part and reaches every __syncthreads, rows past the batch add 0), and thread 0 adds the
  // block's count to *correct with ONE atomicAdd.
  (void)logits, (void)labels, (void)batch, (void)classes, (void)predictions, (void)correct;
}

// Launched with ONE block of kThreads threads.
__global__ void accumulate_loss_kernel(const float* __restrict__ row_loss, int batch, int step,
                                       double* __restrict__ loss_sum, int* __restrict__ bad_step) {
  // TODO(08.3): each thread adds row_loss[b] for b = threadIdx.x, threadIdx.x + blockDim.x, ... in
  // double; a __shared__ double[kThreads] tree adds the partial sums; then thread 0 alone:
  //   *loss_sum += total;   if total is not finite (isfinite) and *bad_step < 0: *bad_step = step.
  (void)row_loss, (void)batch, (void)step, (void)loss_sum, (void)bad_step;
}

void check_batch(const char* what, int batch) {
  if (batch < 0) throw course::Error(std::string(what) + ": batch must be >= 0, got " + std::to_string(batch));
}

}  // namespace

void predict_and_count(const float* logits, const int* labels, int batch, int classes, int* predictions,
                       int* correct) {
  check_batch("predict_and_count", batch);
  if (classes < 1) throw course::Error("predict_and_count: classes must be >= 1, got " + std::to_string(classes));
  if (batch == 0) return;
  predict_count_kernel<<<(batch + kThreads - 1) / kThreads, kThreads>>>(logits, labels, batch, classes, predictions,
                                                                          correct);
  CUDA_CHECK_LAUNCH();
}

void accumulate_loss(const float* row_loss, int batch, int step, double* loss_sum, int* bad_step) {
  check_batch("accumulate_loss", batch);
  if (batch == 0) return;
  accumulate_loss_kernel<<<1, kThreads>>>(row_loss, batch, step, loss_sum, bad_step);
  CUDA_CHECK_LAUNCH();
}

}  // namespace mnist_gpu
