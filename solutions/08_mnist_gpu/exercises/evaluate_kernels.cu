// Lesson 08, step 08.4: the evaluation kernels. Predictions and the count of right answers, and
// the loss added up on the device with a flag for the first step whose loss is NaN or Inf: the
// host reads them only when it reports, so a training step never waits for the GPU.
#include <cmath>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

namespace {

constexpr int kThreads = 256;  // a power of two: the reductions below halve it

// One thread per row b: the first largest logit (strictly greater replaces the best, so the
// first maximum wins ties, as in lesson 01). Then the block counts its right answers with a
// shared-memory tree and adds them to *correct with ONE atomicAdd per block. Integer addition
// is exact and order-independent, so the count is the same on every run.
__global__ void predict_count_kernel(const float* __restrict__ logits, const int* __restrict__ labels, int batch,
                                     int classes, int* __restrict__ predictions, int* __restrict__ correct) {
  __shared__ int hits[kThreads];
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  int hit = 0;
  if (b < batch) {
    const float* z = logits + size_t(b) * classes;
    int best = 0;
    for (int c = 1; c < classes; ++c)
      if (z[c] > z[best]) best = c;
    predictions[b] = best;
    hit = best == labels[b] ? 1 : 0;
  }
  hits[threadIdx.x] = hit;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) hits[threadIdx.x] += hits[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0 && hits[0] != 0) atomicAdd(correct, hits[0]);
}

// ONE block: each thread sums a strided slice of row_loss in double, a tree combines the
// partial sums in a fixed order (deterministic), thread 0 updates the accumulators. A single
// writer: no race on *loss_sum or *bad_step.
__global__ void accumulate_loss_kernel(const float* __restrict__ row_loss, int batch, int step,
                                       double* __restrict__ loss_sum, int* __restrict__ bad_step) {
  __shared__ double partial[kThreads];
  double sum = 0.0;
  for (int b = threadIdx.x; b < batch; b += blockDim.x) sum += double(row_loss[b]);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double total = partial[0];
    *loss_sum += total;
    if (!isfinite(total) && *bad_step < 0) *bad_step = step;  // remember the FIRST bad step only
  }
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
