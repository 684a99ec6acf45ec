// Lesson 15, step 15.5: global average pooling on the GPU.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void global_avg_pool_forward_kernel(const float* __restrict__ x, float* __restrict__ y, size_t planes,
                                               int plane) {
  for (size_t nc = size_t(blockIdx.x) * blockDim.x + threadIdx.x; nc < planes; nc += size_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int p = 0; p < plane; ++p) sum += x[nc * plane + p];
    y[nc] = sum / float(plane);
  }
}

__global__ void global_avg_pool_backward_kernel(const float* __restrict__ dy, float* __restrict__ dx, size_t n,
                                                int plane) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    dx[i] = dy[i / plane] / float(plane);
}

}  // namespace

void global_avg_pool_forward_gpu(const float* x, float* y, int batch, int channels, int plane, cudaStream_t stream) {
  check_pooling("global_avg_pool_forward_gpu", batch, channels, plane);
  const size_t planes = size_t(batch) * channels;
  global_avg_pool_forward_kernel<<<first_kernels::blocks_for(planes), first_kernels::kThreadsPerBlock, 0, stream>>>(
      x, y, planes, plane);
  CUDA_CHECK_LAUNCH();
}

void global_avg_pool_backward_gpu(const float* dy, float* dx, int batch, int channels, int plane, cudaStream_t stream) {
  check_pooling("global_avg_pool_backward_gpu", batch, channels, plane);
  const size_t n = size_t(batch) * channels * plane;
  global_avg_pool_backward_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(
      dy, dx, n, plane);
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
