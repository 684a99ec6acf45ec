#pragma once
// Lesson 15 (given): batch norm over several GPUs (synchronized batch norm). In data-parallel training
// (lesson 13) each GPU holds a share of the batch; batch norm per GPU normalises each share with its own
// statistics. Synchronized, every channel is normalised with the statistics of the whole batch, on
// every GPU, from your 15.6 stages with NCCL between them:
//
//   forward  1. your slices on this GPU: their count, mean and squares a channel
//            2. every GPU's slices gathered on every GPU (ncclAllGather), a channel's side by side
//            3. your normalize: it merges all of them (the batch's mean and inv_std, the same running
//               statistics on every GPU), then normalises this GPU's values
//   backward 1. your slices' sums on this GPU
//            2. those sums added over the GPUs, slice by slice (ncclAllReduce), and scaled by this
//               GPU's count over the batch's, so that your dx, which divides by this GPU's count,
//               divides by the batch's
//            3. your dx from them; its dgamma and dbeta are the batch's sums times this GPU's share
//               of the batch. Averaged over the GPUs afterwards, as every gradient is, they give what
//               the GPUs' own sums averaged give: the batch's sums over the number of GPUs (lesson
//               13's trainer gives every GPU a share of the same size).
//
// Every GPU sends as many entries a channel: the most slices any GPU's largest batch has (agreed on
// with one all-reduce when the statistics are made: every GPU makes its layers in the same order, at
// the same time). A smaller share's missing slices go as entries of count 0, which add nothing to a
// merge. Every launch and collective
// goes to the layer's stream, so a training step with them still replays from a CUDA graph. Every GPU
// must run every forward and backward pass (with at least one image), or the others wait for it
// forever.
#include <cuda_runtime_api.h>

#include "course/device_buffer.hpp"
#include "deeper_cnns.hpp"
#include "framework/ranks.hpp"

namespace deeper_cnns {

class SyncedStatistics {
 public:
  // most: this GPU's largest shape (its layer's largest batch); one all-reduce over the GPUs.
  SyncedStatistics(const framework::Rank& rank, const BatchNormShape& most);
  // 15.6's passes, their statistics over every GPU's share; the same arguments.
  void forward(const BatchNormShape& s, const float* x, const float* gamma, const float* beta, float eps,
               float momentum, const float* skip, bool relu, float* y, float* saved_mean, float* saved_inv_std,
               float* running_mean, float* running_var, float* workspace, cudaStream_t stream);
  void backward(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y, const float* gamma,
                const float* saved_mean, const float* saved_inv_std, float* dx, float* dgamma, float* dbeta,
                float* workspace, cudaStream_t stream);
  int ranks() const { return rank_.ranks; }

 private:
  framework::Rank rank_;
  BatchNormShape most_;
  int slices_;  // a channel's entries from each GPU: the most slices of any GPU's largest batch
  // (mine_ and sums_ before NCCL: this GPU's entries padded to slices_)
  course::DeviceBuffer<float> mine_, gathered_, merged_, sums_, batch_count_;
  // Where this GPU's stage writes its entries: straight into `padded` when its slices are slices_ (the
  // layouts agree), else into `workspace`, for pad.
  float* entries_for(const BatchNormShape& s, float* workspace, float* padded) const;
  // This GPU's `width` floats an entry of `workspace` ([C][its slices][width]) into `padded`
  // ([C][slices_][width]); nothing when they are the same buffer.
  void pad(const BatchNormShape& s, const float* workspace, int width, float* padded, cudaStream_t stream) const;
};

}  // namespace deeper_cnns
