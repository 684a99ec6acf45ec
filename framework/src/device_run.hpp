#pragma once
// The course framework, inside: the GPU run's parts that one GPU (train_on_device) and several
// ranks (train_on_ranks, rank_trainer.hpp) share. Not for the lessons: they call those two.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "course/arithmetic.hpp"
#include "framework/device_trainer.hpp"
#include "framework/host_barrier.hpp"

namespace framework::detail {

// What a run checks and makes once, on the main thread, before anything is built on a GPU.
struct RunStart {
  ModelSpec spec;
  std::vector<Parameter> init;     // every rank starts from these
  int batch = 0;                   // a step's examples, over all ranks
  std::vector<int> network_batches;  // the batch each rank's network is built for (network_batch)
  std::unique_ptr<RunFiles> files;  // --out and --save, checked
  std::unique_ptr<EpochLog> log;
};

// Checks the settings, the outputs and that each of `devices` (one a rank; the lead first) holds
// its part of the network, then makes the initial weights.
RunStart start_run(const TrainConfig& config, const TrainingData& data, const DeviceRun& run,
                   const std::vector<int>& devices);

// How a rank meets the others; one GPU is a lead that meets no one.
struct RankSide {
  int rank = 0, ranks = 1;
  HostBarrier* barrier = nullptr;                 // every rank's thread (one GPU: none)
  std::vector<CounterReport>* reports = nullptr;  // one per rank, shared
  std::string device_line;                        // the first line the lead prints
  bool lead() const { return rank == 0; }
  void meet() const {
    if (barrier) barrier->arrive_and_wait();
  }
};

// The examples of a step's batch that one rank's network takes at most (rank 0's share).
inline int share_of_batch(int batch, int ranks) { return course::ceil_div(batch, ranks); }
// The batch rank `rank`'s network is built for: its share, and on the lead the evaluation's batch,
// kEvalBatch or, where `fits` says a network that large does not fit, the largest of kEvalBatch / 2,
// / 4, ... that does (the test set is then evaluated in smaller chunks; never below the share).
inline int network_batch(int batch, int rank, int ranks, const std::function<bool(int)>& fits) {
  const int share = share_of_batch(batch, ranks);
  if (rank != 0) return share;
  int eval = kEvalBatch;
  while (eval > share && !fits(eval)) eval /= 2;
  return std::max(share, eval);
}

// Enqueues steps first_step .. last_step - 1 of an epoch through `step`: step s takes the examples
// [s * batch, s * batch + count) of `args.order` (count: batch, or what is left of n) and is numbered
// number_base + s + 1; the rest of `args` is passed as it is. The trainers' one step loop.
inline void enqueue_steps(const std::function<void(const StepArgs&)>& step, StepArgs args, int n, int batch,
                          int first_step, int last_step, int number_base) {
  for (int s = first_step; s < last_step; ++s) {
    args.first = s * batch, args.count = std::min(batch, n - args.first), args.number = number_base + s + 1;
    step(args);
  }
}

// What a profile's real steps change, saved before and put back after: the weights and the
// optimizer's state.
class TrainingSnapshot {
 public:
  TrainingSnapshot(DeviceNetwork& net, DeviceUpdate& update)
      : net_(net), update_(update), params_(net.parameters().download()), state_(update.download_state()),
        buffers_(net.download_buffers()), steps_(update.steps()) {}
  void restore() {
    net_.parameters().upload(params_);
    update_.restore(state_, steps_);
    net_.upload_buffers(buffers_);
  }

 private:
  DeviceNetwork& net_;
  DeviceUpdate& update_;
  std::vector<Parameter> params_;
  std::vector<float> state_, buffers_;  // the optimizer's state; the network's buffers (running statistics)
  int steps_;
};

// One rank's whole run, on its thread with its GPU current: the network and optimizer built by
// `run`, the data uploaded, the epochs; the lead also prints, profiles, evaluates and writes the
// files (finish_run).
void train_rank(const TrainConfig& config, const TrainingData& data, const DeviceRun& run, RunStart& start,
                const RankSide& side);

}  // namespace framework::detail
