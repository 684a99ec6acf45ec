// Lesson 12, step 12.1: sigmoid and tanh on the GPU. YOUR FILE.
// Write the four kernel bodies marked TODO(12.1); the launchers below are written for you.
// Each kernel is lesson 03's 1-D grid-stride loop around one line of 12.1's CPU code.
#include "beyond_mnist.hpp"
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace beyond_mnist {

namespace {

__global__ void sigmoid_forward_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  // TODO(12.1): y[i] = 1 / (1 + exp(-x[i])) for EVERY i < n (grid-stride loop, size_t indices;
  // the launcher caps the grid), finite for every finite x: the same formula as your
  // sigmoid_forward, with expf (within 2 ulps; the test allows a few).
  (void)x, (void)y, (void)n;
}

__global__ void sigmoid_backward_kernel(const float* __restrict__ y, const float* __restrict__ dy,
                                        float* __restrict__ dx, size_t n) {
  // TODO(12.1): dx[i] = dy[i] * y[i] * (1 - y[i]) for every i < n.
  (void)y, (void)dy, (void)dx, (void)n;
}

__global__ void tanh_forward_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  // TODO(12.1): y[i] = tanhf(x[i]) for every i < n.
  (void)x, (void)y, (void)n;
}

__global__ void tanh_backward_kernel(const float* __restrict__ y, const float* __restrict__ dy,
                                     float* __restrict__ dx, size_t n) {
  // TODO(12.1): dx[i] = dy[i] * (1 - y[i] * y[i]) for every i < n.
  (void)y, (void)dy, (void)dx, (void)n;
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
