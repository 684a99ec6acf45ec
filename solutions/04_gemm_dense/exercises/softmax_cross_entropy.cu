// Lesson 04, step 04.8: softmax + cross-entropy on the GPU, one row (one example) per block.
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
// be a power of two <= kMaxRowThreads. A tree in shared memory: at each level the lower half
// of the active threads adds in the upper half, and a barrier separates the levels.
template <typename Op>
__device__ float block_reduce(float value, float* scratch, Op op) {
  const int t = threadIdx.x;
  scratch[t] = value;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) scratch[t] = op(scratch[t], scratch[t + half]);
    __syncthreads();
  }
  const float result = scratch[0];
  __syncthreads();  // every thread has read scratch[0] before the next reduction overwrites it
  return result;
}

// Block b handles row b: threads stride over its classes.
//   1. m = max_c z_c                (so exp never overflows: every z_c - m <= 0)
//   2. s = sum_c exp(z_c - m)       (>= 1: the max itself contributes exp(0))
//   3. p_c = exp(z_c - m) / s
//   4. loss = log s - (z_label - m) (= -log p_label, without taking the log of a tiny p)
__global__ void softmax_ce_forward_kernel(const float* __restrict__ logits, const int* __restrict__ labels,
                                         float* __restrict__ probs, float* __restrict__ row_loss, int classes) {
  __shared__ float scratch[kMaxRowThreads];
  const size_t offset = size_t(blockIdx.x) * classes;
  const float* z = logits + offset;
  float* p = probs + offset;

  float m = -INFINITY;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, z[c]);
  m = block_reduce(m, scratch, MaxOp{});

  float s = 0.0f;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) s += expf(z[c] - m);
  s = block_reduce(s, scratch, SumOp{});

  const float inv_s = 1.0f / s;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) p[c] = expf(z[c] - m) * inv_s;
  if (threadIdx.x == 0) {
    const int label = labels[blockIdx.x];
    row_loss[blockIdx.x] = (label >= 0 && label < classes) ? logf(s) - (z[label] - m) : NAN;
  }
}

// dlogits[b][c] = (p[b][c] - [c == label_b]) / batch, one thread per element (grid-stride).
__global__ void softmax_ce_backward_kernel(const float* __restrict__ probs, const int* __restrict__ labels,
                                           float* __restrict__ dlogits, size_t count, int classes, float inv_batch) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int label = labels[i / classes];
    const int c = int(i % classes);
    const bool valid = label >= 0 && label < classes;
    dlogits[i] = valid ? (probs[i] - (c == label ? 1.0f : 0.0f)) * inv_batch : NAN;
  }
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
