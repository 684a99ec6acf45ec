// Lesson 08, step 08.2: Adam as one elementwise kernel over every parameter of the network.
#include <cmath>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "first_kernels.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

namespace {

// One grid-stride loop: each element is read once and written once, w, m and v stay in
// registers in between. correction1 = 1 - beta1^t and correction2 = 1 - beta2^t.
__global__ void adam_kernel(float* __restrict__ w, const float* __restrict__ grad, float* __restrict__ m,
                            float* __restrict__ v, size_t n, const float* __restrict__ lr, float beta1,
                            float beta2, float eps, float weight_decay, float correction1, float correction2) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const float rate = *lr;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float wi = w[i];
    const float g = grad[i] + weight_decay * wi;
    const float mi = beta1 * m[i] + (1.0f - beta1) * g;
    const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    // The same operations in the same order as lesson 02's adam_step (divisions, not
    // multiplications by reciprocals), so the two agree to a few ulps.
    const float m_hat = mi / correction1;
    const float v_hat = vi / correction2;
    w[i] = wi - rate * m_hat / (sqrtf(v_hat) + eps);
  }
}

}  // namespace

void adam_update(float* w, const float* grad, float* m, float* v, size_t n, const float* lr, float beta1,
                 float beta2, float eps, float weight_decay, int t, cudaStream_t stream) {
  if (t < 1) throw course::Error("adam_update: the step number t must be >= 1, got " + std::to_string(t));
  if (n == 0) return;
  // In double, as lesson 02: beta2^t is close to 1 for small t, and 1 - it loses digits in float.
  const float correction1 = static_cast<float>(1.0 - std::pow(double(beta1), t));
  const float correction2 = static_cast<float>(1.0 - std::pow(double(beta2), t));
  adam_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(
      w, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, correction1, correction2);
  CUDA_CHECK_LAUNCH();
}

}  // namespace mnist_gpu
