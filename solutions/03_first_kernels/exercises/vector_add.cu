// Lesson 03, step 03.1: vector add, the 1-D grid-stride loop.
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void vector_add_kernel(const float* a, const float* b, float* c, size_t n) {
  // size_t, not int: blockIdx.x * blockDim.x is computed in 32 bits and n may pass 2^31.
  const size_t stride = size_t(gridDim.x) * blockDim.x;  // threads in the whole grid
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, size_t n) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch configuration
  vector_add_kernel<<<blocks_for(n), kThreadsPerBlock>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernels
