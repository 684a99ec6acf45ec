// Lesson 03, step 03.1: ReLU forward and backward, elementwise (1-D grid-stride loops).
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void relu_forward_kernel(const float* x, float* y, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = x[i];
    y[i] = v > 0.0f ? v : 0.0f;  // the same comparison as lesson 01, so the results are identical
  }
}

__global__ void relu_backward_kernel(const float* x, const float* dy, float* dx, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;  // x == 0 counts as "off": gradient 0
}

}  // namespace

void relu_forward(const float* x, float* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  relu_forward_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void relu_backward(const float* x, const float* dy, float* dx, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  relu_backward_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(x, dy, dx, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernels
