// Lesson 12, step 12.2: dropout on the GPU. YOUR FILE.
// Write the kernel body marked TODO(12.2); the launchers below are written for you. Forward and
// backward are the same map (keep and scale, or 0), so one kernel serves both.
#include "beyond_mnist.hpp"
#include "course/cuda_check.hpp"
#include "dropout_mask.hpp"
#include "first_kernels.hpp"

namespace beyond_mnist {

namespace {

// scale = dropout_scale(rate), computed once on the host by the launcher. key_in_memory: where the
// mask's key is, in device memory (beyond_mnist.hpp says why); each thread reads it once.
__global__ void dropout_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n, float rate,
                               float scale, const uint64_t* __restrict__ key_in_memory) {
  // TODO(12.2): read key = *key_in_memory; then for EVERY i < n (grid-stride loop, size_t indices):
  // out[i] = in[i] * scale where dropout_keeps(key, i, rate), else 0. The same mask and the same one
  // multiply as your CPU dropout_forward, so the bits are the same (the test compares exactly).
  (void)in, (void)out, (void)n, (void)rate, (void)scale, (void)key_in_memory;
}

void launch_dropout(const float* in, float* out, size_t n, float rate, const uint64_t* key, cudaStream_t stream) {
  if (n == 0) return;
  dropout_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(
      in, out, n, rate, dropout_scale(rate), key);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void dropout_forward_gpu(const float* x, float* y, size_t n, float rate, const uint64_t* key, cudaStream_t stream) {
  check_dropout_rate("dropout_forward_gpu", rate);
  launch_dropout(x, y, n, rate, key, stream);
}

void dropout_backward_gpu(const float* dy, float* dx, size_t n, float rate, const uint64_t* key, cudaStream_t stream) {
  check_dropout_rate("dropout_backward_gpu", rate);
  launch_dropout(dy, dx, n, rate, key, stream);
}

}  // namespace beyond_mnist
