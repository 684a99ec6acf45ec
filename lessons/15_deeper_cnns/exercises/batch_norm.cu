// Lesson 15, step 15.2: batch normalisation on the GPU, with the ReLU after it fused. YOUR FILE:
// the three kernel bodies marked TODO; the launchers below are written for you.
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
  // TODO(15.2): this block is channel blockIdx.x. The mean from every thread's share of the M values
  // (s.at(c, i); i from threadIdx.x in steps of blockDim.x) and block_sum; then the squares around
  // it the same way; then y (max(0, y) when relu) and, from one thread, the saved and running
  // statistics as 15.1's.
  (void)s, (void)x, (void)gamma, (void)beta, (void)eps, (void)momentum, (void)relu, (void)y, (void)saved_mean,
      (void)saved_inv_std, (void)running_mean, (void)running_var;
}

// Every value on its own: the statistics are the running ones.
__global__ void batch_norm_eval_kernel(BatchNormShape s, const float* __restrict__ x, const float* __restrict__ gamma,
                                       const float* __restrict__ beta, const float* __restrict__ running_mean,
                                       const float* __restrict__ running_var, float eps, bool relu,
                                       float* __restrict__ y) {
  // TODO(15.2): every value k of x (a grid-stride loop), its channel from k, y from the running
  // statistics (max(0, y) when relu).
  (void)s, (void)x, (void)gamma, (void)beta, (void)running_mean, (void)running_var, (void)eps, (void)relu, (void)y;
}

// One block a channel: the two sums, then dx.
__global__ void __launch_bounds__(kThreads)
    batch_norm_backward_kernel(BatchNormShape s, const float* __restrict__ x, const float* __restrict__ dy,
                               const float* __restrict__ relu_y, const float* __restrict__ gamma,
                               const float* __restrict__ saved_mean, const float* __restrict__ saved_inv_std,
                               float* __restrict__ dx, float* __restrict__ dgamma, float* __restrict__ dbeta) {
  // TODO(15.2): channel blockIdx.x. dy, zeroed where relu_y (when not null) is not > 0, summed
  // alone and times xhat over the channel (block_sum); then dx as 15.1's; dgamma and dbeta from one
  // thread.
  (void)s, (void)x, (void)dy, (void)relu_y, (void)gamma, (void)saved_mean, (void)saved_inv_std, (void)dx,
      (void)dgamma, (void)dbeta;
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
