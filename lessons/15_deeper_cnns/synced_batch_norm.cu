// Lesson 15 (given): batch norm over several GPUs (synced_batch_norm.hpp).
#include "synced_batch_norm.hpp"

#include <nccl.h>

#include <algorithm>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "framework/nccl_check.hpp"

namespace deeper_cnns {

namespace {

// gathered [ranks][channels][slices][3] -> merged [channels][ranks][slices][3]: each channel's entries
// side by side, as your normalize reads a channel's entries; a thread a float. Block 0's first warp
// also adds channel 0's counts (the batch's count) into batch_count.
constexpr int kByChannelThreads = 256;
__global__ void by_channel_kernel(int ranks, int channels, int slices, const float* __restrict__ gathered,
                                  float* __restrict__ merged, float* __restrict__ batch_count) {
  const size_t entry = 3 * size_t(slices);  // one GPU's floats a channel
  const size_t total = size_t(ranks) * channels * entry;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
    const size_t j = i % entry, rc = i / entry, c = rc % size_t(channels), r = rc / size_t(channels);
    merged[(c * ranks + r) * entry + j] = gathered[i];
  }
  if (blockIdx.x != 0 || threadIdx.x >= 32) return;
  float count = 0.0f;  // whole numbers: exact in any order
  for (int k = threadIdx.x; k < ranks * slices; k += 32)
    count += gathered[size_t(k / slices) * channels * entry + 3 * size_t(k % slices)];
  for (int offset = 16; offset > 0; offset /= 2) count += __shfl_down_sync(0xffffffffu, count, offset);
  if (threadIdx.x == 0) *batch_count = count;
}

__global__ void scale_sums_kernel(int count, float* __restrict__ sums, float mine, const float* __restrict__ batch_count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) sums[i] *= mine / *batch_count;
}

}  // namespace

SyncedStatistics::SyncedStatistics(const framework::Rank& rank, const BatchNormShape& most)
    : rank_(rank), most_(most), slices_(batch_norm_slices(most).count) {
  if (rank.ranks < 1 || !rank.comm) throw course::Error("SyncedStatistics: needs the ranks' NCCL communicator");
  check_batch_norm_shape("SyncedStatistics", most, false);
  // Every GPU must send as many entries, and a GPU's largest batch may differ (the lead's evaluation
  // batch): every GPU pads to the most slices of any, agreed on once here, before any step.
  course::DeviceBuffer<int> most_slices(std::vector<int>{slices_});
  NCCL_CHECK(ncclAllReduce(most_slices.data(), most_slices.data(), 1, ncclInt32, ncclMax, rank.comm, nullptr));
  CUDA_CHECK(cudaStreamSynchronize(nullptr));
  slices_ = most_slices.to_host()[0];
  const size_t entries = size_t(most.channels) * size_t(slices_);
  mine_ = course::DeviceBuffer<float>(3 * entries);
  gathered_ = course::DeviceBuffer<float>(3 * entries * size_t(rank.ranks));
  merged_ = course::DeviceBuffer<float>(3 * entries * size_t(rank.ranks));
  sums_ = course::DeviceBuffer<float>(2 * entries);
  batch_count_ = course::DeviceBuffer<float>(1);
}

float* SyncedStatistics::entries_for(const BatchNormShape& s, float* workspace, float* padded) const {
  return batch_norm_slices(s).count == slices_ ? padded : workspace;
}

void SyncedStatistics::pad(const BatchNormShape& s, const float* workspace, int width, float* padded,
                           cudaStream_t stream) const {
  const int slices = batch_norm_slices(s).count;
  if (workspace == padded) return;  // written in place: as many slices as every GPU sends
  const size_t row = size_t(width) * sizeof(float);
  CUDA_CHECK(cudaMemsetAsync(padded, 0, size_t(s.channels) * slices_ * row, stream));
  CUDA_CHECK(cudaMemcpy2DAsync(padded, slices_ * row, workspace, slices * row, slices * row, size_t(s.channels),
                               cudaMemcpyDeviceToDevice, stream));
}

namespace {
void check_share(const char* function, const BatchNormShape& s, const BatchNormShape& most) {
  check_batch_norm_shape(function, s, false);  // one image: its share may have one value
  if (s.channels != most.channels || s.height != most.height || s.width != most.width || s.batch > most.batch)
    throw course::Error(std::string(function) + ": the shape is not within the one the statistics were made for");
}
}  // namespace

void SyncedStatistics::forward(const BatchNormShape& s, const float* x, const float* gamma, const float* beta, float eps,
                               float momentum, const float* skip, bool relu, float* y, float* saved_mean,
                               float* saved_inv_std, float* running_mean, float* running_var, float* workspace,
                               cudaStream_t stream) {
  check_share("SyncedStatistics::forward", s, most_);
  const int C = most_.channels;
  // 1. this GPU's slices, padded to every GPU's count of entries
  float* entries = entries_for(s, workspace, mine_.data());
  batch_norm_slice_stats_gpu(s, x, entries, stream);
  pad(s, entries, 3, mine_.data(), stream);
  // 2. every GPU's, on every GPU, a channel's side by side
  NCCL_CHECK(ncclAllGather(mine_.data(), gathered_.data(), mine_.size(), ncclFloat, rank_.comm, stream));
  const int blocks = int(std::min<size_t>((gathered_.size() + kByChannelThreads - 1) / kByChannelThreads, 1024));
  by_channel_kernel<<<blocks, kByChannelThreads, 0, stream>>>(rank_.ranks, C, slices_, gathered_.data(),
                                                              merged_.data(), batch_count_.data());
  CUDA_CHECK_LAUNCH();
  // 3. merged by your normalize, which normalises with them
  batch_norm_normalize_gpu(s, x, gamma, beta, merged_.data(), rank_.ranks * slices_, eps, momentum, saved_mean,
                           saved_inv_std, running_mean, running_var, skip, relu, y, stream);
}

void SyncedStatistics::backward(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                                float* dgamma, float* dbeta, float* workspace, cudaStream_t stream) {
  check_share("SyncedStatistics::backward", s, most_);
  // 1. this GPU's slices' sums, padded
  float* sums = entries_for(s, workspace, sums_.data());
  batch_norm_slice_grad_sums_gpu(s, x, dy, relu_y, saved_mean, saved_inv_std, sums, stream);
  pad(s, sums, 2, sums_.data(), stream);
  // 2. the batch's sums slice by slice, scaled to this GPU's count
  NCCL_CHECK(ncclAllReduce(sums_.data(), sums_.data(), sums_.size(), ncclFloat, ncclSum, rank_.comm, stream));
  scale_sums_kernel<<<int((sums_.size() + 127) / 128), 128, 0, stream>>>(int(sums_.size()), sums_.data(),
                                                                         float(s.per_channel()), batch_count_.data());
  CUDA_CHECK_LAUNCH();
  // 3. your dx from them
  batch_norm_dx_gpu(s, x, dy, relu_y, gamma, saved_mean, saved_inv_std, sums_.data(), slices_, dgamma, dbeta, dx,
                    stream);
}

}  // namespace deeper_cnns
