// Lesson 15, step 15.5: global average pooling on the GPU. YOUR FILE: the two kernel bodies; the
// launchers below are written for you.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void global_avg_pool_forward_kernel(const float* __restrict__ x, float* __restrict__ y, size_t planes,
                                               int plane) {
  // TODO(15.5): a thread a plane nc < planes (grid-stride): the plane's mean into y[nc].
  (void)x, (void)y, (void)planes, (void)plane;
}

__global__ void global_avg_pool_backward_kernel(const float* __restrict__ dy, float* __restrict__ dx, size_t n,
                                                int plane) {
  // TODO(15.5): a thread a value i < n of dx (grid-stride): its plane's dy over plane.
  (void)dy, (void)dx, (void)n, (void)plane;
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
