// Lesson 16 (given): the sine task's network on one GPU (sine_gpu_model.hpp).
#include "sine_gpu_model.hpp"

#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "block_reduce.cuh"   // lesson 09's warp_sum and block_sum
#include "data_parallel.hpp"  // 13.2's allreduce_mean
#include "deeper_cnns.hpp"    // 15.4's regression_loss_gpu
#include "mnist_gpu.hpp"      // 08.2's adam_update
#include "sine_model.hpp"     // the starting weights and their layout

namespace recurrent {

namespace {

// The head (one output from H numbers) on every (t, b) row. Lesson 09's dense products are built for
// wide outputs; a single one over 97,000 rows needs a reduction along the rows instead.
constexpr int kHeadParts = 1024;  // blocks of the weight gradient's first pass (~95 rows each)

// pred[r] = h[r] . w + b: a warp a row, its lanes along the row.
__global__ void head_forward(const float* h, const float* w, const float* b, float* pred, int rows, int H) {
  const int row = int((blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32), lane = threadIdx.x % 32;
  if (row >= rows) return;  // whole warps leave together
  float sum = 0;
  for (int j = lane; j < H; j += 32) sum += h[size_t(row) * H + j] * w[j];
  sum = fast_training::warp_sum(sum);
  if (lane == 0) pred[row] = sum + b[0];
}

// dh = dpred w, every element; and block k's part (rows k * per ...) of the weight's gradient,
// sum over r of dpred[r] h[r], and of the bias's, sum of dpred: parts[k][0 .. H].
__global__ void head_backward_parts(const float* h, const float* w, const float* dpred, float* dh, float* parts,
                                    int rows, int H) {
  const int per = (rows + gridDim.x - 1) / gridDim.x, first = blockIdx.x * per, end = min(rows, first + per);
  for (int j = threadIdx.x; j <= H; j += blockDim.x) {
    const float wj = j < H ? w[j] : 0.0f;
    float sum = 0;
    for (int r = first; r < end; ++r) {
      const float d = dpred[r];
      if (j < H) {
        sum += d * h[size_t(r) * H + j];
        dh[size_t(r) * H + j] = d * wj;
      } else {
        sum += d;
      }
    }
    parts[size_t(blockIdx.x) * (H + 1) + j] = sum;
  }
}

// Sums of `count` values `stride` apart, one a block: sums[blockIdx.x] = the sum of values[blockIdx.x +
// k * stride] for k < count. Each thread adds every blockDim.x-th value, then lesson 09's block_sum:
// the same order every run. The head's parts (a block a column: H of the weight, then the bias; they
// are neighbours in the parameters) and the loss's rows (15.4's rows add up to the mean).
constexpr int kSumThreads = 256;
__global__ void strided_sums(const float* values, int count, int stride, float* sums) {
  float sum = 0;
  for (int k = threadIdx.x; k < count; k += kSumThreads) sum += values[size_t(k) * stride + blockIdx.x];
  sum = fast_training::block_sum(sum);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

}  // namespace

SineGpuNetwork::SineGpuNetwork(int hidden, uint64_t seed, Recurrence recurrence, bool graph, const SineData& data,
                               const framework::Rank* rank, int train_waves)
    : hidden_(hidden), rank_(rank && rank->ranks > 1 ? rank : nullptr),
      train_waves_(rank_ ? train_waves : data.train.count), recurrence_(recurrence), use_graph_(graph) {
  if (train_waves_ < data.train.count)
    throw course::Error("SineGpuNetwork: a shard of " + std::to_string(data.train.count) + " waves out of " +
                        std::to_string(train_waves_));
  const SineLayout at(hidden);
  w_hh_ = at.w_hh, b_ih_ = at.b_ih, b_hh_ = at.b_hh, head_ = at.head, head_b_ = at.head_b;
  if (recurrence == Recurrence::persistent)  // refused here, before any allocation, when it cannot run
    plan_persistent({std::max(data.train.count, data.test.count), data.train.steps, 1, hidden});
  // What the two sets need on the device (h, c, the gates, dh, the passes' workspaces), against what
  // is free: refused in one line rather than failing halfway.
  double floats = 0;
  for (const SineSet* set : {&data.train, &data.test}) {
    const LstmShape s{set->count, set->steps, 1, hidden};
    floats += 7.0 * set->count * set->steps * hidden + double(lstm_gpu_workspace_floats(s));
  }
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (floats * sizeof(float) > 0.9 * double(free_bytes))
    throw course::Error("the GPU has " + std::to_string(free_bytes >> 20) + " MiB free; " +
                        std::to_string(long(floats * sizeof(float)) >> 20) + " MiB of states and gradients are "
                        "needed: use fewer --sequences, a shorter --length or fewer --hidden units");
  params_ = course::DeviceBuffer<float>(sine_start_parameters(hidden, seed));
  grad_ = course::DeviceBuffer<float>(at.total), m_ = course::DeviceBuffer<float>(at.total);
  v_ = course::DeviceBuffer<float>(at.total);
  m_.zero(), v_.zero();
  head_parts_ = course::DeviceBuffer<float>(size_t(kHeadParts) * (hidden + 1));
  upload(train_, data.train, true);
  upload(test_, data.test, false);
}

void SineGpuNetwork::upload(Pass& pass, const SineSet& set, bool learn) {
  pass.count = set.count, pass.steps = set.steps;
  const LstmShape s{set.count, set.steps, 1, hidden_};
  const size_t rows = size_t(set.count) * set.steps, states = rows * hidden_;
  pass.inputs = course::DeviceBuffer<float>(set.inputs), pass.targets = course::DeviceBuffer<float>(set.targets);
  pass.zeros = course::DeviceBuffer<float>(size_t(set.count) * hidden_);
  pass.zeros.zero();
  pass.h = course::DeviceBuffer<float>(states), pass.c = course::DeviceBuffer<float>(states);
  pass.gates = course::DeviceBuffer<float>(states * 4), pass.pred = course::DeviceBuffer<float>(rows);
  pass.row_loss = course::DeviceBuffer<float>(rows), pass.dpred = course::DeviceBuffer<float>(rows);
  pass.workspace = course::DeviceBuffer<float>(lstm_gpu_workspace_floats(s));
  if (learn) {
    pass.dh = course::DeviceBuffer<float>(states);
    pass.dh0 = course::DeviceBuffer<float>(pass.zeros.size()), pass.dc0 = course::DeviceBuffer<float>(pass.zeros.size());
  }
  pass.loss = course::DeviceBuffer<float>(1);
}

void SineGpuNetwork::enqueue(Pass& pass, bool learn) {
  const LstmShape s{pass.count, pass.steps, 1, hidden_};
  const int rows = pass.count * pass.steps;
  cudaStream_t stream = stream_.get();
  float* p = params_.data();
  const LstmParams<float> lstm{p, p + w_hh_, p + b_ih_, p + b_hh_};
  lstm_forward_gpu(recurrence_, s, lstm, pass.inputs.data(), pass.zeros.data(), pass.zeros.data(), pass.h.data(),
                   pass.c.data(), pass.gates.data(), pass.workspace.data(), stream);
  head_forward<<<(rows + 7) / 8, 256, 0, stream>>>(pass.h.data(), p + head_, p + head_b_, pass.pred.data(), rows,
                                                    hidden_);
  CUDA_CHECK_LAUNCH();
  deeper_cnns::regression_loss_gpu(deeper_cnns::RegressionLoss::squared, pass.pred.data(), pass.targets.data(), rows,
                                   1, 1.0f, pass.row_loss.data(), pass.dpred.data(), stream);
  strided_sums<<<1, kSumThreads, 0, stream>>>(pass.row_loss.data(), rows, 1, pass.loss.data());
  CUDA_CHECK_LAUNCH();
  if (!learn) return;
  float* g = grad_.data();
  head_backward_parts<<<kHeadParts, 128, 0, stream>>>(pass.h.data(), p + head_, pass.dpred.data(), pass.dh.data(),
                                                       head_parts_.data(), rows, hidden_);
  CUDA_CHECK_LAUNCH();
  strided_sums<<<hidden_ + 1, kSumThreads, 0, stream>>>(head_parts_.data(), kHeadParts, hidden_ + 1, g + head_);
  CUDA_CHECK_LAUNCH();
  // The waves are data: no gradient for the inputs (dx null).
  lstm_backward_gpu(recurrence_, s, lstm, pass.inputs.data(), pass.zeros.data(), pass.zeros.data(), pass.h.data(),
                    pass.c.data(), pass.gates.data(), pass.dh.data(), nullptr, nullptr, nullptr,
                    pass.dh0.data(), pass.dc0.data(), {g, g + w_hh_, g + b_ih_, g + b_hh_}, pass.workspace.data(),
                    stream);
}

void SineGpuNetwork::launch(Pass& pass, bool learn) {
  if (!use_graph_) return enqueue(pass, learn);
  if (pass.graph.empty())
    pass.graph = fast_training::GraphExec(fast_training::capture_graph(stream_.get(), [&] { enqueue(pass, learn); }));
  pass.graph.launch(stream_.get());
}

double SineGpuNetwork::finished_loss(const Pass& pass) {
  float loss = 0;
  CUDA_CHECK(cudaMemcpyAsync(&loss, pass.loss.data(), sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream_.get()));  // the one wait of a step: its work is done
  return loss;
}

double SineGpuNetwork::train_step(float lr, int step) {
  launch(train_, true);
  if (rank_)  // the mean over every rank's rows: each shard's mean weighted by its rows
    data_parallel::allreduce_mean(*rank_, grad_.data(), grad_.size(), train_.count, train_waves_, stream_.get());
  if (lr != lr_value_) {  // in stream order: this step's update reads it
    lr_value_ = lr;
    CUDA_CHECK(cudaMemcpyAsync(lr_.data(), &lr_value_, sizeof(float), cudaMemcpyHostToDevice, stream_.get()));
  }
  mnist_gpu::adam_update(params_.data(), grad_.data(), m_.data(), v_.data(), params_.size(), lr_.data(), 0.9f, 0.999f,
                         1e-8f, 0.0f, step, stream_.get());
  return finished_loss(train_);
}

double SineGpuNetwork::test_loss() {
  launch(test_, false);
  return finished_loss(test_);
}

}  // namespace recurrent
