// Lesson 15, step 15.8: the ReLUs ride in a res block's adds, on the GPU. YOUR FILE: the two kernel
// bodies; the launchers below are written for you.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y, size_t n,
                           bool relu) {
  // TODO(15.8): a thread a value i < n (grid-stride): y[i] from a[i] and b[i], through the ReLU where relu.
  (void)a, (void)b, (void)y, (void)n, (void)relu;
}

__global__ void add_masked_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  const float* __restrict__ mask, float* __restrict__ y, size_t n) {
  // TODO(15.8): a thread a value i < n (grid-stride): the two gradients' sum where the mask lets it
  // through, else 0 (deeper_cnns.hpp says which masks do).
  (void)a, (void)b, (void)mask, (void)y, (void)n;
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
