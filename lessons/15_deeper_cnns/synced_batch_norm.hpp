#pragma once
// Lesson 15 (given): batch norm over several GPUs (synchronized batch norm). In data-parallel training
// (lesson 13) each GPU holds a share of the batch; batch norm per GPU normalises each share with its own
// statistics. Synchronized, every channel is normalised with the statistics of the whole batch, on
// every GPU, from your 15.6 stages with NCCL between them:
//
//   forward  1. your slices and their merge on this GPU: its count, mean and squares a channel
//            2. every GPU's three numbers a channel gathered on every GPU (ncclAllGather)
//            3. your merge again, over the GPUs' entries: the batch's mean and inv_std, the running
//               statistics (the same on every GPU)
//            4. your normalize, with them
//   backward 1. your slices' sums and their merge: this GPU's dgamma and dbeta (its parameters'
//               gradients, averaged over the GPUs afterwards as every gradient is)
//            2. those sums added over the GPUs (ncclAllReduce) and scaled by this GPU's count over the
//               batch's, so that your dx, which divides by this GPU's count, divides by the batch's
//            3. your dx from them
//
// The counts: a GPU's share has M_r = N_r * H * W values a channel, the batch M = sum M_r. The squares
// of step 1 come back from the inverse deviation your merge saves: q = M_r * (1 / inv_std^2 - eps).
// Every launch and collective goes to the layer's stream, so a training step with them still replays
// from a CUDA graph. Every GPU must run every forward and backward pass (with at least one image), or
// the others wait for it forever.
#include <cuda_runtime_api.h>

#include "course/device_buffer.hpp"
#include "deeper_cnns.hpp"
#include "framework/ranks.hpp"

namespace deeper_cnns {

class SyncedStatistics {
 public:
  SyncedStatistics(const framework::Rank& rank, int channels);
  // 15.6's passes, their statistics over every GPU's share; the same arguments.
  void forward(const BatchNormShape& s, const float* x, const float* gamma, const float* beta, float eps,
               float momentum, bool relu, float* y, float* saved_mean, float* saved_inv_std, float* running_mean,
               float* running_var, float* workspace, cudaStream_t stream);
  void backward(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y, const float* gamma,
                const float* saved_mean, const float* saved_inv_std, float* dx, float* dgamma, float* dbeta,
                float* workspace, cudaStream_t stream);
  int ranks() const { return rank_.ranks; }

 private:
  framework::Rank rank_;
  int channels_;
  course::DeviceBuffer<float> local_, mine_, gathered_, merged_, sums_, batch_count_;
};

}  // namespace deeper_cnns
