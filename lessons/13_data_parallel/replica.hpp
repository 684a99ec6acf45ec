#pragma once
// Lesson 13 (given): one rank's whole training state (a replica): a network on this rank's GPU
// (lesson 09's fast network, or any layer list on lesson 12's layers: network_kinds.hpp), lesson 08's
// optimizer, buffers for this rank's shard, and the data-parallel step made of 13.1-13.3. The
// trainer, the scaling program and the tests all train through it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "data_parallel.hpp"
#include "framework/device_data.hpp"
#include "host_training.hpp"
#include "network_kinds.hpp"
#include "optimizer.hpp"
#include "step_graph.hpp"

namespace data_parallel {

struct ReplicaOptions {
  int batch = 128;  // the most examples one step takes over ALL ranks (each rank gets its shard)
  host_training::OptimizerConfig optimizer;
  bool overlap = true;               // 13.3: reduce bucket by bucket during the backward pass
  size_t bucket_floats = 1u << 20;   // 4 MiB of gradients a bucket at most (whole layers)
  NetworkKind network = NetworkKind::fast_network;
  fast_training::ConvEngine conv = fast_training::ConvEngine::tiled;  // fast_network's conv engine
  // layer_list: dropout's masks. Rank r draws from dropout_seed + r, so that every shard has masks of
  // its own (with one seed, row i of every shard would drop the same values); rank 0's are one GPU's.
  uint64_t dropout_seed = 1;
  int eval_batch = 0;                // the network also evaluates batches of up to this many
  // Set: the network is this maker's, not `network`'s (a later lesson's layers). One without a
  // gradient hook needs overlap off.
  ReplicaNetworkMaker make_network;
};

class Replica {
 public:
  // Builds the network from `init` and makes every rank's parameters rank 0's (13.1's broadcast):
  // a collective, so every rank constructs its replica. Throws course::Error on bad options.
  Replica(const Rank& rank, const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
          const ReplicaOptions& options);

  // One step over examples first .. first+count-1 of `order` (the epoch's order, on this rank's
  // GPU): this rank gathers only its shard (13.1) from its own copy of the data (08.3); forward and
  // backward on it; the gradients averaged over all ranks (13.2, bucket by bucket during the
  // backward pass with overlap: 13.3); the optimizer's step. Everything on stream(), no host wait.
  // A rank with an empty shard still takes part in every all-reduce, with zero gradients.
  void step(const framework::DeviceDataset& data, const int* order, int first, int count);
  // The same step on a batch already on this rank's GPU (count examples; this rank reads its shard).
  void step_on_batch(const float* x, const int* labels, int count);

  Shard shard(int count) const { return shard_of(count, rank_.ranks, rank_.rank); }
  const Rank& rank() const { return rank_; }
  framework::DeviceNetwork& net() { return *net_; }
  framework::ParameterStore& parameters() { return net_->parameters(); }
  mnist_gpu::DeviceOptimizer& optimizer() { return *optimizer_; }
  cudaStream_t stream() const { return stream_.get(); }
  const float* shard_x() const { return x_.data(); }
  const int* shard_labels() const { return labels_.data(); }
  size_t buckets() const { return overlap_ ? overlap_->buckets().size() : 1; }

 private:
  void train_shard(const float* x, const int* labels, int shard, int count);
  Rank rank_;
  ReplicaOptions options_;
  fast_training::Stream stream_;
  std::unique_ptr<framework::DeviceNetwork> net_;
  std::unique_ptr<mnist_gpu::DeviceOptimizer> optimizer_;
  std::unique_ptr<OverlappedBackward> overlap_;
  course::DeviceBuffer<float> x_;
  course::DeviceBuffer<int> labels_;
};

}  // namespace data_parallel
