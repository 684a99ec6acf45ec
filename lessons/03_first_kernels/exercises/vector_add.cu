// Lesson 03, step 03.1: vector add, the 1-D grid-stride loop. YOUR FILE.
// The launcher at the bottom is written; fill in the kernel body.
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void vector_add_kernel(const float* a, const float* b, float* c, size_t n) {
  // TODO(03.1): c[i] = a[i] + b[i] for every i < n, and nothing written at i >= n.
  // a, b, c are device arrays of n floats. The launcher caps the grid at kMaxBlocks blocks
  // (first_kernels.hpp), so n may be larger than the grid's kGridCapacity threads: every
  // element must still be written (a grid-stride loop). n may pass 2^31: do the index
  // arithmetic in size_t (blockIdx.x * blockDim.x alone is 32-bit). n == 0 never reaches the
  // kernel (the launcher launches nothing).
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, size_t n) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch configuration
  vector_add_kernel<<<blocks_for(n), kThreadsPerBlock>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernels
