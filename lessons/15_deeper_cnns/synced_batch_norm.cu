// Lesson 15 (given): batch norm over several GPUs (synced_batch_norm.hpp).
#include "synced_batch_norm.hpp"

#include <nccl.h>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "first_kernels.hpp"  // lesson 03's grid
#include "framework/nccl_check.hpp"

namespace deeper_cnns {

namespace {

// This GPU's count, mean and squares a channel, [channels][3], from what the merge saved.
__global__ void pack_statistics_kernel(int channels, float count, const float* __restrict__ mean,
                                       const float* __restrict__ inv_std, float eps, float* __restrict__ mine) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const float variance = fmaxf(1.0f / (inv_std[c] * inv_std[c]) - eps, 0.0f);
  mine[3 * c] = count, mine[3 * c + 1] = mean[c], mine[3 * c + 2] = count * variance;
}

// gathered [ranks][channels][3] -> merged [channels][ranks][3]: each channel's entries side by side,
// as the merge reads a channel's slices. The batch's count (channel 0's counts added) to batch_count.
__global__ void by_channel_kernel(int ranks, int channels, const float* __restrict__ gathered,
                                  float* __restrict__ merged, float* __restrict__ batch_count) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  for (int r = 0; r < ranks; ++r)
    for (int j = 0; j < 3; ++j) merged[(size_t(c) * ranks + r) * 3 + j] = gathered[(size_t(r) * channels + c) * 3 + j];
  if (c == 0) {
    float count = 0.0f;
    for (int r = 0; r < ranks; ++r) count += gathered[size_t(r) * channels * 3];
    *batch_count = count;
  }
}

__global__ void scale_sums_kernel(int count, float* __restrict__ sums, float mine, const float* __restrict__ batch_count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) sums[i] *= mine / *batch_count;
}

}  // namespace

SyncedStatistics::SyncedStatistics(const framework::Rank& rank, int channels) : rank_(rank), channels_(channels) {
  if (rank.ranks < 1 || !rank.comm) throw course::Error("SyncedStatistics: needs the ranks' NCCL communicator");
  if (channels < 1) throw course::Error("SyncedStatistics: channels must be >= 1");
  const size_t C = size_t(channels);
  local_ = course::DeviceBuffer<float>(4 * C);  // this GPU's mean and inv_std, and running statistics to throw away
  mine_ = course::DeviceBuffer<float>(3 * C);
  gathered_ = course::DeviceBuffer<float>(3 * C * size_t(rank.ranks));
  merged_ = course::DeviceBuffer<float>(3 * C * size_t(rank.ranks));
  sums_ = course::DeviceBuffer<float>(2 * C);
  batch_count_ = course::DeviceBuffer<float>(1);
}

void SyncedStatistics::forward(const BatchNormShape& s, const float* x, const float* gamma, const float* beta, float eps,
                               float momentum, bool relu, float* y, float* saved_mean, float* saved_inv_std,
                               float* running_mean, float* running_var, float* workspace, cudaStream_t stream) {
  check_batch_norm_shape("SyncedStatistics::forward", s, false);  // one image: its share may have one value
  if (s.channels != channels_) throw course::Error("SyncedStatistics::forward: the shape's channels differ");
  const int C = channels_;
  float* local_mean = local_.data();
  float* local_inv = local_.data() + C;
  // 1. this GPU's statistics (its running statistics are not kept: the batch's are, in step 3)
  batch_norm_slice_stats_gpu(s, x, workspace, stream);
  batch_norm_merge_stats_gpu(C, batch_norm_slices(s).count, workspace, eps, momentum, local_mean, local_inv,
                             local_.data() + 2 * C, local_.data() + 3 * C, stream);
  pack_statistics_kernel<<<(C + 127) / 128, 128, 0, stream>>>(C, float(s.per_channel()), local_mean, local_inv, eps,
                                                              mine_.data());
  CUDA_CHECK_LAUNCH();
  // 2. every GPU's, on every GPU
  NCCL_CHECK(ncclAllGather(mine_.data(), gathered_.data(), 3 * size_t(C), ncclFloat, rank_.comm, stream));
  by_channel_kernel<<<(C + 127) / 128, 128, 0, stream>>>(rank_.ranks, C, gathered_.data(), merged_.data(),
                                                         batch_count_.data());
  CUDA_CHECK_LAUNCH();
  // 3. the batch's, merged as your merge merges slices; 4. the values normalised with them
  batch_norm_merge_stats_gpu(C, rank_.ranks, merged_.data(), eps, momentum, saved_mean, saved_inv_std, running_mean,
                             running_var, stream);
  batch_norm_normalize_gpu(s, x, gamma, beta, saved_mean, saved_inv_std, relu, y, stream);
}

void SyncedStatistics::backward(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                                float* dgamma, float* dbeta, float* workspace, cudaStream_t stream) {
  check_batch_norm_shape("SyncedStatistics::backward", s, false);
  const int C = channels_;
  // 1. this GPU's sums: its dgamma and dbeta
  batch_norm_slice_grad_sums_gpu(s, x, dy, relu_y, saved_mean, saved_inv_std, workspace, stream);
  batch_norm_merge_grad_sums_gpu(C, batch_norm_slices(s).count, workspace, dgamma, dbeta, stream);
  // 2. the batch's sums, scaled to this GPU's count
  float* sum_g = sums_.data();
  float* sum_g_xhat = sums_.data() + C;
  CUDA_CHECK(cudaMemcpyAsync(sum_g, dbeta, size_t(C) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(sum_g_xhat, dgamma, size_t(C) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  NCCL_CHECK(ncclAllReduce(sums_.data(), sums_.data(), 2 * size_t(C), ncclFloat, ncclSum, rank_.comm, stream));
  scale_sums_kernel<<<(2 * C + 127) / 128, 128, 0, stream>>>(2 * C, sums_.data(), float(s.per_channel()),
                                                             batch_count_.data());
  CUDA_CHECK_LAUNCH();
  // 3. dx
  batch_norm_dx_gpu(s, x, dy, relu_y, gamma, saved_mean, saved_inv_std, sum_g_xhat, sum_g, dx, stream);
}

}  // namespace deeper_cnns
