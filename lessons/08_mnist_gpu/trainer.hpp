#pragma once
// The GPU training loop of train_mnist.
//
// Per step, all on the device and without the host waiting:
//   gather (08.2) -> forward + loss + backward (08.4) -> loss sum and NaN flag (08.3)
//   -> right answers of the batch (08.3) -> optimizer: ONE launch (lesson 03 SGD or 08.1 Adam)
// The host reads the device's loss sum only at report points: every kReportEvery steps (the
// progress bar) and at the end of an epoch; a NaN/Inf loss then stops training with its step.
#include <cstdint>
#include <string>
#include <vector>

#include "host_training.hpp"
#include "layers.hpp"

namespace mnist_gpu {

constexpr int kReportEvery = 50;  // steps between progress-bar refreshes (each one waits for the GPU)
constexpr int kEvalBatch = 1000;  // examples per forward pass when evaluating the test set

struct GpuTrainConfig {
  std::string model = "a", optimizer = "sgd", dataset = "mnist", data_dir, out_dir, save_dir;
  int epochs = 5, batch = 128;
  float lr = 0.05f;
  uint64_t seed = 1;
  int train_limit = 0, test_limit = 0;
  ConvAlgorithm conv = ConvAlgorithm::automatic;
  bool profile = false;
  int profile_steps = 200;
};

// Loads the data, trains, evaluates after every epoch, writes the files. Throws course::Error on
// bad input, a missing data set, out of device memory or a NaN loss.
// The per-epoch numbers are lesson 02's TrainSummary (both trainers report through its EpochLog).
host_training::TrainSummary train_on_gpu(const GpuTrainConfig& config);

}  // namespace mnist_gpu
