// Lesson 03, step 03.2: one SGD-with-momentum step, the formula of torch.optim.SGD
// (dampening 0, no Nesterov) and of lesson 02's host_training::sgd_momentum_step.
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void sgd_momentum_kernel(float* w, const float* g, float* velocity, size_t n, const float* lr,
                                    float momentum, float weight_decay) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const float rate = *lr;  // the same float for every thread: read once, from the cache
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // Each element is read once and written once: keep w and v in registers in between.
    const float wi = w[i];
    const float v = momentum * velocity[i] + (g[i] + weight_decay * wi);
    velocity[i] = v;
    w[i] = wi - rate * v;
  }
}

}  // namespace

void sgd_momentum_update(float* w, const float* g, float* velocity, size_t n, const float* lr, float momentum,
                         float weight_decay, cudaStream_t stream) {
  if (n == 0) return;
  sgd_momentum_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(w, g, velocity, n, lr, momentum, weight_decay);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernels
