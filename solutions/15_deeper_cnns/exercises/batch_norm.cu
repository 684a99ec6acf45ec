// Lesson 15, step 15.2: batch normalisation on the GPU, with the ReLU after it fused.
#include "block_reduce.cuh"  // lesson 09's block_sum
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid for an elementwise kernel

namespace deeper_cnns {

namespace {

// One block a channel: its M values, kThreads at a time.
__global__ void __launch_bounds__(kThreads)
    batch_norm_train_kernel(BatchNormShape s, const float* __restrict__ x, const float* __restrict__ gamma,
                            const float* __restrict__ beta, float eps, float momentum, bool relu, float* __restrict__ y,
                            float* __restrict__ saved_mean, float* __restrict__ saved_inv_std,
                            float* __restrict__ running_mean, float* __restrict__ running_var) {
  const int c = blockIdx.x;
  const size_t M = s.per_channel();
  // The mean first: each thread's share, then the block's sum.
  float sum = 0.0f;
  for (size_t i = threadIdx.x; i < M; i += blockDim.x) sum += x[s.at(c, i)];
  const float mean = fast_training::block_sum(sum) / float(M);
  // Then the squares around it: small numbers, no cancellation.
  float squares = 0.0f;
  for (size_t i = threadIdx.x; i < M; i += blockDim.x) {
    const float d = x[s.at(c, i)] - mean;
    squares += d * d;
  }
  squares = fast_training::block_sum(squares);
  const float inv_std = 1.0f / sqrtf(squares / float(M) + eps);
  const float g = gamma[c], b = beta[c];
  for (size_t i = threadIdx.x; i < M; i += blockDim.x) {
    const size_t k = s.at(c, i);
    const float v = g * ((x[k] - mean) * inv_std) + b;
    y[k] = relu ? fmaxf(v, 0.0f) : v;
  }
  if (threadIdx.x == 0) {
    saved_mean[c] = mean;
    saved_inv_std[c] = inv_std;
    running_mean[c] = (1.0f - momentum) * running_mean[c] + momentum * mean;
    running_var[c] = (1.0f - momentum) * running_var[c] + momentum * (squares / float(M - 1));
  }
}

// Every value on its own: the statistics are the running ones.
__global__ void batch_norm_eval_kernel(BatchNormShape s, const float* __restrict__ x, const float* __restrict__ gamma,
                                       const float* __restrict__ beta, const float* __restrict__ running_mean,
                                       const float* __restrict__ running_var, float eps, bool relu,
                                       float* __restrict__ y) {
  const size_t n = s.size(), plane = size_t(s.height) * s.width;
  for (size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += size_t(gridDim.x) * blockDim.x) {
    const int c = int(k / plane % s.channels);
    const float v = gamma[c] * ((x[k] - running_mean[c]) / sqrtf(running_var[c] + eps)) + beta[c];
    y[k] = relu ? fmaxf(v, 0.0f) : v;
  }
}

// One block a channel: the two sums, then dx.
__global__ void __launch_bounds__(kThreads)
    batch_norm_backward_kernel(BatchNormShape s, const float* __restrict__ x, const float* __restrict__ dy,
                               const float* __restrict__ relu_y, const float* __restrict__ gamma,
                               const float* __restrict__ saved_mean, const float* __restrict__ saved_inv_std,
                               float* __restrict__ dx, float* __restrict__ dgamma, float* __restrict__ dbeta) {
  const int c = blockIdx.x;
  const size_t M = s.per_channel();
  const float mean = saved_mean[c], inv_std = saved_inv_std[c];
  // dL/d(the normalised value): dy, where the fused ReLU passed it.
  auto grad = [&](size_t k) { return relu_y && !(relu_y[k] > 0.0f) ? 0.0f : dy[k]; };
  float sum_g = 0.0f, sum_g_xhat = 0.0f;
  for (size_t i = threadIdx.x; i < M; i += blockDim.x) {
    const size_t k = s.at(c, i);
    const float g = grad(k);
    sum_g += g;
    sum_g_xhat += g * ((x[k] - mean) * inv_std);
  }
  sum_g = fast_training::block_sum(sum_g);
  sum_g_xhat = fast_training::block_sum(sum_g_xhat);
  const float scale = gamma[c] * inv_std, mean_g = sum_g / float(M), mean_g_xhat = sum_g_xhat / float(M);
  for (size_t i = threadIdx.x; i < M; i += blockDim.x) {
    const size_t k = s.at(c, i);
    dx[k] = scale * (grad(k) - mean_g - (x[k] - mean) * inv_std * mean_g_xhat);
  }
  if (threadIdx.x == 0) {
    dbeta[c] = sum_g;
    dgamma[c] = sum_g_xhat;
  }
}

}  // namespace

void batch_norm_forward_train_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                  float eps, float momentum, bool relu, float* y, float* saved_mean,
                                  float* saved_inv_std, float* running_mean, float* running_var, cudaStream_t stream) {
  check_batch_norm("batch_norm_forward_train_gpu", s, eps, momentum, true);
  batch_norm_train_kernel<<<s.channels, kThreads, 0, stream>>>(s, x, gamma, beta, eps, momentum, relu, y, saved_mean,
                                                               saved_inv_std, running_mean, running_var);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_forward_eval_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                 const float* running_mean, const float* running_var, float eps, bool relu, float* y,
                                 cudaStream_t stream) {
  check_batch_norm("batch_norm_forward_eval_gpu", s, eps, 0.0, false);
  batch_norm_eval_kernel<<<first_kernels::blocks_for(s.size()), first_kernels::kThreadsPerBlock, 0, stream>>>(
      s, x, gamma, beta, running_mean, running_var, eps, relu, y);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_backward_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                             const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                             float* dgamma, float* dbeta, cudaStream_t stream) {
  check_batch_norm_shape("batch_norm_backward_gpu", s, true);
  batch_norm_backward_kernel<<<s.channels, kThreads, 0, stream>>>(s, x, dy, relu_y, gamma, saved_mean, saved_inv_std,
                                                                  dx, dgamma, dbeta);
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
