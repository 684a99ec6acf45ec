#pragma once
// Lesson 13's trainer (train_parallel): lesson 09's trainer on one rank per GPU. --batch is the
// batch of EACH GPU, as with PyTorch's DistributedDataParallel: N GPUs take N * batch examples a
// step, the step one GPU would take with that batch (same learning rate: more GPUs, fewer and
// larger steps per epoch). Every rank holds the training set on its GPU and gathers its own shard
// of each batch; rank 0 also evaluates, prints and writes the files (the framework's run on several
// ranks: framework/rank_trainer.hpp).
#include <cstddef>
#include <string>

#include "fast_trainer.hpp"
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

framework::TrainSummary train_parallel(const ParallelTrainConfig& config, const framework::TrainingData& data);

}  // namespace data_parallel
