// Lesson 12, step 12.2: dropout on the GPU. Forward and backward are the same map (keep and
// scale, or 0), so one kernel serves both; the mask and the multiply are the CPU's, bit for bit.
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
  const uint64_t key = *key_in_memory;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = dropout_keeps(key, i, rate) ? in[i] * scale : 0.0f;
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
