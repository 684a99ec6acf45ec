// Lesson 03, step 03.2: one SGD-with-momentum step on the GPU. YOUR FILE.
// The formula of torch.optim.SGD (dampening 0, no Nesterov) and of lesson 02's
// host_training::sgd_momentum_step. The launcher at the bottom is written.
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void sgd_momentum_kernel(float* w, const float* g, float* velocity, size_t n, const float* lr,
                                    float momentum, float weight_decay) {
  // TODO(03.2): for every i < n (grid-stride loop, size_t indices), in place, the update of
  // lesson 02's host_training::sgd_momentum_step: the weight decay goes into the gradient,
  // velocity[i] = momentum * velocity[i] + (g[i] + weight_decay * w[i]) with the OLD w[i],
  // then w[i] moves by -(the rate) * (the new velocity[i]). g is read-only. The rate is the float lr
  // points to, in device memory (first_kernels.hpp says why).
}

}  // namespace

void sgd_momentum_update(float* w, const float* g, float* velocity, size_t n, const float* lr, float momentum,
                         float weight_decay, cudaStream_t stream) {
  if (n == 0) return;
  sgd_momentum_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(w, g, velocity, n, lr, momentum, weight_decay);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernels
