#pragma once
// The course framework: a training run timed as one interval on the GPU clock, as a speedrun times
// it. Every epoch's order is on the GPU and every epoch's steps are enqueued (or captured, each
// epoch into graphs of its own) before the clock starts; then the epochs run back to back with no
// report point, no evaluation and nothing read back until the clock stops: the epoch loop's
// whole-run timing (epoch_loop.hpp, Timing::whole_run) on the GPU's clock. The trainers' run
// (device_trainer.hpp) times each epoch instead, stopping at report points to print, watch the loss
// and evaluate.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "framework/device_data.hpp"
#include "framework/device_network.hpp"
#include "framework/device_trainer.hpp"

namespace framework {

struct TimedRun {
  int epochs = 1;
  int batch = 1;       // at most the data set's size (a smaller set is one batch)
  uint64_t seed = 0;   // of the epochs' orders
  std::function<std::vector<int>(int n, uint64_t seed, int epoch)> epoch_order;
  // One training step as the trainers' run calls it (StepArgs), except that its number counts from
  // 1 over the WHOLE run: each epoch is captured apart, so a step may depend on its number by value
  // (a key of its own, say).
  std::function<void(const StepArgs& step)> step;
  // How one epoch's steps are replayed (unset: enqueued while the clock runs).
  std::function<std::function<void()>(const std::function<void()>& enqueue)> capture;
  cudaStream_t stream = nullptr;  // where the steps launch (nullptr: the network's own stream)
};

struct TimedTraining {
  double setup_ms = 0;  // host clock: the buffers, the orders' upload and the capture, before the clock starts
  double train_ms = 0;  // GPU clock: from the first step's start to the last step's end
};

// The steps of every epoch of `train` through `net` and `update` as `run` says, in training mode,
// and how long they took. Throws course::Error on a NaN loss, after the clock, naming the step
// (the step must feed counters.bad_step() through its loss sum).
TimedTraining time_training(DeviceNetwork& net, DeviceUpdate& update, const DeviceDataset& train,
                            const TimedRun& run);

}  // namespace framework
