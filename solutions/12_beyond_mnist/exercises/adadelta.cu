// Lesson 12, step 12.3: Adadelta as one elementwise kernel over every parameter.
#include "beyond_mnist.hpp"
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace beyond_mnist {

namespace {

__global__ void adadelta_kernel(float* __restrict__ w, const float* __restrict__ grad, float* __restrict__ square_avg,
                                float* __restrict__ delta_avg, size_t n, const float* __restrict__ lr, float rho,
                                float eps, float weight_decay) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const float rate = *lr;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // Each element read once and written once; the new values stay in registers in between.
    const float wi = w[i];
    const float g = grad[i] + weight_decay * wi;
    const float sq = rho * square_avg[i] + (1.0f - rho) * g * g;
    const float old_delta_avg = delta_avg[i];
    const float delta = sqrtf(old_delta_avg + eps) / sqrtf(sq + eps) * g;
    square_avg[i] = sq;
    delta_avg[i] = rho * old_delta_avg + (1.0f - rho) * delta * delta;
    w[i] = wi - rate * delta;
  }
}

}  // namespace

void adadelta_update_gpu(float* w, const float* grad, float* square_avg, float* delta_avg, size_t n, const float* lr,
                         float rho, float eps, float weight_decay, cudaStream_t stream) {
  check_adadelta_gpu("adadelta_update_gpu", lr, n, rho, eps);
  if (n == 0) return;
  adadelta_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(
      w, grad, square_avg, delta_avg, n, lr, rho, eps, weight_decay);
  CUDA_CHECK_LAUNCH();
}

}  // namespace beyond_mnist
