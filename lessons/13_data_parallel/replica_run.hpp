#pragma once
// Lesson 13 (given): a rank's replica as the framework's run on several ranks takes it
// (framework/rank_trainer.hpp): train_parallel hands it lesson 09's network, a later lesson its
// own. --batch is the batch of EACH GPU, as with PyTorch's DistributedDataParallel: N GPUs take
// N * batch examples a step, the step one GPU would take with that batch (same learning rate: more
// GPUs, fewer and larger steps per epoch). Every rank holds the training set on its GPU and gathers
// its own shard of each batch; rank 0 also evaluates, prints and writes the files.
#include <cstddef>
#include <string>
#include <vector>

#include "fast_run.hpp"
#include "framework/rank_trainer.hpp"
#include "host_training.hpp"
#include "network_kinds.hpp"
#include "framework/training_data.hpp"

namespace data_parallel {

struct ParallelTrainConfig : fast_training::FastTrainConfig {
  NetworkKind network = NetworkKind::fast_network;  // or any layer list on lesson 12's layers
  int gpus = 0;                     // 0: every usable GPU
  bool overlap = true;              // 13.3: all-reduce bucket by bucket during the backward pass
  size_t bucket_floats = 1u << 20;  // gradients per bucket at most (whole layers)
  // A later lesson's network in every replica instead of `network`'s, and its name on the first
  // line (ReplicaOptions::make_network).
  ReplicaNetworkMaker make_network;
  std::string network_text;
};

// What the framework's run needs on `rank`: the rank's replica (replica.hpp) as its network, optimizer
// and step (your 13.1-13.3), lesson 08's counters and evaluation, and the replayed graphs. `program`
// names the run in the message without a GPU.
framework::DeviceRun replica_run(const ParallelTrainConfig& config, const framework::TrainingData& data,
                                 const framework::Rank& rank, const std::string& program);

// The GPUs a run of `config` trains on: --gpus of them, or every usable one.
std::vector<int> devices_of(const ParallelTrainConfig& config);

}  // namespace data_parallel
