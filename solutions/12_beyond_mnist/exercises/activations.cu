// Lesson 12, step 12.1: sigmoid and tanh on the GPU: lesson 03's 1-D grid-stride loop around one
// line of 12.1's CPU code.
#include "beyond_mnist.hpp"
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace beyond_mnist {

namespace {

__global__ void sigmoid_forward_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // As the CPU: expf of a non-positive number only, so it never overflows.
    const float v = x[i];
    if (v >= 0.0f) {
      y[i] = 1.0f / (1.0f + expf(-v));
    } else {
      const float e = expf(v);
      y[i] = e / (1.0f + e);
    }
  }
}

__global__ void sigmoid_backward_kernel(const float* __restrict__ y, const float* __restrict__ dy,
                                        float* __restrict__ dx, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dx[i] = dy[i] * y[i] * (1.0f - y[i]);
}

__global__ void tanh_forward_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = tanhf(x[i]);
}

__global__ void tanh_backward_kernel(const float* __restrict__ y, const float* __restrict__ dy,
                                     float* __restrict__ dx, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dx[i] = dy[i] * (1.0f - y[i] * y[i]);
}

}  // namespace

void sigmoid_forward_gpu(const float* x, float* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  sigmoid_forward_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void sigmoid_backward_gpu(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  sigmoid_backward_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(y, dy, dx,
                                                                                                         n);
  CUDA_CHECK_LAUNCH();
}

void tanh_forward_gpu(const float* x, float* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  tanh_forward_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void tanh_backward_gpu(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  tanh_backward_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(y, dy, dx, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace beyond_mnist
