// Lesson 15, step 15.8: a res block's elementwise passes on the GPU.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = fmaxf(x[i], 0.0f);
}

__global__ void relu_backward_kernel(const float* __restrict__ y, const float* __restrict__ dy, float* __restrict__ dx,
                                     size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y, size_t n,
                           bool relu) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = relu ? fmaxf(a[i] + b[i], 0.0f) : a[i] + b[i];
}

__global__ void add_masked_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  const float* __restrict__ mask, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = mask[i] > 0.0f ? a[i] + b[i] : 0.0f;  // selected: a NaN behind a closed mask stays out
}

}  // namespace

void relu_forward_gpu(const float* x, float* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  relu_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void relu_backward_gpu(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  relu_backward_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(y, dy, dx, n);
  CUDA_CHECK_LAUNCH();
}

void add_gpu(const float* a, const float* b, float* y, size_t n, bool relu, cudaStream_t stream) {
  if (n == 0) return;
  add_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(a, b, y, n, relu);
  CUDA_CHECK_LAUNCH();
}

void add_masked_gpu(const float* a, const float* b, const float* mask, float* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  add_masked_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(a, b, mask, y, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
