#pragma once
// The course framework: the GPU run of device_trainer.hpp on several GPUs, one rank each (ranks.hpp).
// Every rank runs the same epochs on its own thread with the DeviceRun the lesson makes for it:
// its own network and optimizer on its GPU, its own copy of the training set, the same order of
// examples, and the lesson's step (which takes this rank's share of each batch and meets the others
// in its collectives). The ranks meet on the host where the run reads the counters (every rank's
// loss sums and right answers added up) and around each epoch's clock; rank 0 (the lead) prints,
// evaluates and writes the files. --batch is each GPU's batch: a step takes ranks x batch examples.
#include <functional>
#include <string>
#include <vector>

#include "framework/device_trainer.hpp"
#include "framework/ranks.hpp"

namespace framework {

// Trains on devices[r] with run_of_rank(rank r), called on rank r's thread (and once before, on
// this thread, for the checks: it only makes the hooks, and builds nothing). --profile is refused
// with more than one rank.
TrainSummary train_on_ranks(const TrainConfig& config, const TrainingData& data, const std::vector<int>& devices,
                            const std::function<DeviceRun(const Rank& rank)>& run_of_rank);

}  // namespace framework
