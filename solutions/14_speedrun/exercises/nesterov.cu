// Lesson 14, step 14.4: SGD with Nesterov momentum as one elementwise kernel over every parameter.
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"
#include "speedrun.hpp"

namespace speedrun {

namespace {

__global__ void nesterov_kernel(float* __restrict__ w, const float* __restrict__ grad, float* __restrict__ velocity,
                                size_t n, const float* __restrict__ lr, float momentum, float weight_decay) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const float rate = *lr;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // Each element read once and written once; the new values stay in registers in between.
    const float wi = w[i];
    const float g = grad[i] + weight_decay * wi;
    const float v = momentum * velocity[i] + g;
    velocity[i] = v;
    w[i] = wi - rate * (g + momentum * v);
  }
}

}  // namespace

void nesterov_update_gpu(float* w, const float* grad, float* velocity, size_t n, const float* lr, float momentum,
                         float weight_decay, cudaStream_t stream) {
  check_nesterov_gpu("nesterov_update_gpu", lr, n, momentum, weight_decay);
  if (n == 0) return;
  nesterov_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(
      w, grad, velocity, n, lr, momentum, weight_decay);
  CUDA_CHECK_LAUNCH();
}

}  // namespace speedrun
