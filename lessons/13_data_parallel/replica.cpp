// Lesson 13 (given): a rank's replica (replica.hpp).
#include "replica.hpp"

#include <algorithm>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "mnist_gpu.hpp"

namespace data_parallel {

Replica::Replica(const Rank& rank, const host_training::ModelSpec& spec,
                 const std::vector<host_training::Parameter>& init, const ReplicaOptions& options)
    : rank_(rank), options_(options) {
  if (options.batch < 1) throw course::Error("Replica: batch must be >= 1");
  const int largest_shard = shard_of(options.batch, rank.ranks, 0).count;  // rank 0's is never smaller
  const int max_batch = std::max({largest_shard, options.eval_batch, 1});
  const uint64_t seed = options.dropout_seed + uint64_t(rank.rank);
  net_ = options.make_network ? options.make_network(spec, init, max_batch, stream_.get(), seed, rank_)
                              : make_replica_network(options.network, spec, init, max_batch, stream_.get(), options.conv,
                                                     seed);
  if (!net_) throw course::Error("Replica: no network was built for model '" + course::shown(spec.name, 80) + "'");
  optimizer_ = std::make_unique<mnist_gpu::DeviceOptimizer>(options.optimizer, net_->parameters());
  if (options.overlap) overlap_ = std::make_unique<OverlappedBackward>(net_->parameters(), options.bucket_floats);
  x_ = course::DeviceBuffer<float>(size_t(std::max(largest_shard, 1)) * net_->input_size());
  labels_ = course::DeviceBuffer<int>(size_t(std::max(largest_shard, 1)));
  broadcast_parameters(rank_, net_->parameters(), stream_.get());  // 13.1: everyone starts from rank 0's
  CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
}

void Replica::step(const framework::DeviceDataset& data, const int* order, int first, int count) {
  const Shard s = shard(count);
  if (s.count > 0)
    mnist_gpu::gather_batch(data.images.data(), data.labels.data(), data.count, data.per_example, order,
                            first + s.first, s.count, x_.data(), labels_.data(), stream_.get());
  train_shard(x_.data(), labels_.data(), s.count, count);
}

void Replica::step_on_batch(const float* x, const int* labels, int count) {
  const Shard s = shard(count);
  train_shard(x + size_t(s.first) * net_->input_size(), labels + s.first, s.count, count);
}

void Replica::train_shard(const float* x, const int* labels, int shard, int count) {
  if (count < 1 || count > options_.batch)
    throw course::Error("Replica::step: " + std::to_string(count) + " examples, outside 1.." +
                        std::to_string(options_.batch));
  framework::ParameterStore& p = net_->parameters();
  auto reduce = [&](const Bucket& b, cudaStream_t stream) {
    allreduce_mean(rank_, p.grads() + b.offset, b.count, shard, count, stream);  // 13.2
  };
  if (shard == 0) {
    // Nothing to learn from, but the others wait for this rank's part of every all-reduce: the same
    // collectives, in the same order, with gradients that weigh zero (zeroed: no NaN from old data).
    CUDA_CHECK(cudaMemsetAsync(p.grads(), 0, p.total() * sizeof(float), stream_.get()));
    if (overlap_)
      for (const Bucket& b : overlap_->buckets()) reduce(b, stream_.get());
    else
      reduce(Bucket{0, p.tensors(), 0, p.total()}, stream_.get());
  } else if (overlap_) {
    overlap_->forward_backward(*net_, x, labels, shard, reduce);  // 13.3
  } else {
    net_->forward_backward(x, labels, shard);
    reduce(Bucket{0, p.tensors(), 0, p.total()}, stream_.get());
  }
  optimizer_->step(stream_.get());
}

}  // namespace data_parallel
