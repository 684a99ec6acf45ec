// Lesson 04, step 04.8: softmax + cross-entropy on the GPU, one row (one example) per block.
// YOUR FILE: fill in block_reduce and the two kernels; the launchers at the bottom are written.
#include <algorithm>
#include <cmath>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_dense.hpp"

namespace gemm_dense {

// The two ways block_reduce combines values.
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

namespace {

constexpr int kMaxRowThreads = 256;
static_assert((kMaxRowThreads & (kMaxRowThreads - 1)) == 0, "the reduction tree halves: a power of two");


// Combines one value per thread of the block; every thread gets the result. blockDim.x must
// be a power of two <= kMaxRowThreads.
template <typename Op>
__device__ float block_reduce(float value, float* scratch, Op op) {
  // TODO(04.8): return op applied over the values of all blockDim.x threads, to EVERY thread.
  // scratch: blockDim.x floats of shared memory. Every thread of the block calls it (it holds
  // barriers). A second call may follow at once with the same scratch: when this one returns,
  // no thread may still need to read scratch.
  (void)scratch, (void)op;
  return value;
}

// Block b handles row b (blockDim.x threads, a power of two <= kMaxRowThreads).
__global__ void softmax_ce_forward_kernel(const float* __restrict__ logits, const int* __restrict__ labels,
                                         float* __restrict__ probs, float* __restrict__ row_loss, int classes) {
  // TODO(04.8): row b = blockIdx.x of logits [batch x classes] (offsets in size_t); classes may
  // be larger than blockDim.x. Write probs[b][c] = softmax of the row for every c < classes, and
  // row_loss[b] = -log probs[b][labels[b]] (lesson 01's per-row loss, not divided by batch):
  // NaN when labels[b] is outside 0..classes-1 (and never read logits at such a label).
  // Numerically stable: logits of size 1e4 must give finite results. Use block_reduce.
}

// dlogits[i] = (probs[i] - [c == label]) / batch for i = b * classes + c < count.
__global__ void softmax_ce_backward_kernel(const float* __restrict__ probs, const int* __restrict__ labels,
                                           float* __restrict__ dlogits, size_t count, int classes, float inv_batch) {
  // TODO(04.8): for every i < count (the grid is capped: grid-stride loop), with b = i / classes
  // and c = i % classes: dlogits[i] = (probs[i] - (c == labels[b] ? 1 : 0)) * inv_batch, the
  // gradient of the MEAN loss; NaN for every element of a row whose label is outside
  // 0..classes-1.
}

void check_sizes(const char* what, int batch, int classes) {
  if (batch < 0 || classes < 0)
    throw course::Error(std::string(what) + ": sizes must be >= 0, got batch = " + std::to_string(batch) +
                        ", classes = " + std::to_string(classes));
  if (batch > 0 && classes == 0)
    throw course::Error(std::string(what) + ": a softmax over 0 classes is undefined");
}

}  // namespace

void softmax_cross_entropy_forward(const float* logits, const int* labels, float* probs, float* row_loss, int batch,
                                   int classes) {
  check_sizes("softmax_cross_entropy_forward", batch, classes);
  if (batch == 0) return;
  // The smallest power of two >= classes (at least a warp, at most kMaxRowThreads): 10 MNIST
  // classes need 32 threads, not 256 mostly idle ones.
  int threads = 32;
  while (threads < classes && threads < kMaxRowThreads) threads *= 2;
  softmax_ce_forward_kernel<<<batch, threads>>>(logits, labels, probs, row_loss, classes);
  CUDA_CHECK_LAUNCH();
}

void softmax_cross_entropy_backward(const float* probs, const int* labels, float* dlogits, int batch, int classes) {
  check_sizes("softmax_cross_entropy_backward", batch, classes);
  if (batch == 0) return;
  const size_t count = size_t(batch) * classes;
  const int threads = 256;
  const int blocks = int(std::min<size_t>((count + threads - 1) / threads, 4096));
  softmax_ce_backward_kernel<<<blocks, threads>>>(probs, labels, dlogits, count, classes, 1.0f / float(batch));
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm_dense
