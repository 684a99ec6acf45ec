// Lesson 15, step 15.8: the ReLUs ride in a res block's adds, on the GPU.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

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
