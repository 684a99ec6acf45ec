// Lesson 09, step 09.6: softmax-cross-entropy's forward and backward in one kernel.
#include <algorithm>
#include <string>

#include "block_reduce.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "fast_training.hpp"

namespace fast_training {

namespace {

// Block b owns row b; its threads stride over the classes. Two reductions (the maximum, then the
// sum of exponentials), and then everything is known: the loss and every gradient element.
__global__ void softmax_ce_fused_kernel(const float* __restrict__ logits, const int* __restrict__ labels,
                                        float* __restrict__ row_loss, float* __restrict__ dlogits, int classes,
                                        float inv_batch) {
  const float* z = logits + size_t(blockIdx.x) * classes;
  float* dz = dlogits + size_t(blockIdx.x) * classes;
  const int label = labels[blockIdx.x];
  const bool valid = label >= 0 && label < classes;

  float m = -INFINITY;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, z[c]);
  m = block_max(m);  // subtracting it keeps every exponent <= 0: no overflow
  float s = 0.0f;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) s += expf(z[c] - m);
  s = block_sum(s);

  const float inv_s = 1.0f / s;
  for (int c = threadIdx.x; c < classes; c += blockDim.x)
    dz[c] = valid ? (expf(z[c] - m) * inv_s - (c == label ? 1.0f : 0.0f)) * inv_batch : NAN;
  if (threadIdx.x == 0) row_loss[blockIdx.x] = valid ? logf(s) - (z[label] - m) : NAN;
}

}  // namespace

// Given: argument checks and the launch (a warp per 32 classes, at most 256 threads).
void softmax_cross_entropy_fused(const float* logits, const int* labels, float* row_loss, float* dlogits, int batch,
                                 int classes, cudaStream_t stream) {
  if (batch < 0 || classes < 1)
    throw course::Error("softmax_cross_entropy_fused: batch " + std::to_string(batch) + ", classes " +
                        std::to_string(classes) + " (need batch >= 0, classes >= 1)");
  if (batch == 0) return;
  const int threads = std::min(256, (classes + 31) / 32 * 32);
  softmax_ce_fused_kernel<<<batch, threads, 0, stream>>>(logits, labels, row_loss, dlogits, classes, 1.0f / batch);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fast_training
