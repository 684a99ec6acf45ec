#pragma once
// The GPU trainer of train_mnist: this lesson's network, optimizer and training step.
//
// Per step, all on the device and without the host waiting (trainer.cpp, run.step):
//   gather (08.7) -> forward + loss + backward (08.8: the layers of 08.1-08.5) -> loss sum and
//   NaN flag (08.9) -> right answers of the batch (08.9) -> optimizer: ONE launch (lesson 03 SGD
//   or 08.6 Adam)
// The run around the steps is the framework's (framework/device_trainer.hpp): the epochs, the
// host reading the device's loss sum only at report points (every framework::kReportEvery steps,
// for the progress bar, and at the end of an epoch; a NaN/Inf loss then stops training with its
// step), the evaluation after each epoch, the files.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "conv_layer.hpp"
#include "host_training.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "framework/device_network.hpp"
#include "framework/device_trainer.hpp"
#include "framework/step_profile.hpp"
#include "framework/training_data.hpp"

namespace mnist_gpu {

constexpr int kEvalBatch = framework::kEvalBatch;  // examples per forward pass when evaluating the test set

// Lesson 02's TrainConfig with the GPU's defaults (written here once; train_mnist's flags show
// them) and the settings only the GPU trainer has. Fields not set here keep lesson 02's defaults.
struct GpuTrainConfig : framework::TrainConfig {
  GpuTrainConfig() {
    model = "a";  // about half an hour per epoch on a CPU, seconds on a GPU
    epochs = 5;
    batch = 128;
    default_sgd_lr = 0.05f;  // the setting of the measured runs (docs/results.md)
  }
  ConvAlgorithm conv = ConvAlgorithm::automatic;
  bool profile = false;
  int profile_steps = 200;
};

// Trains on `data` (loaded and checked by framework::load_training_data(config)), evaluates
// after every epoch, writes the files. Throws course::Error on bad input, out of device memory or a
// NaN loss. The per-epoch numbers are the framework's TrainSummary (the CPU trainer reports through
// the same EpochLog).
// extras: what a later lesson plugs in (other layers, another loss or optimizer, another network, a
// stream and a replay of the steps); empty: this lesson's alone.
// A replay of a stretch of steps: given what enqueues them (on the extras' stream), returns what
// runs them again each epoch (e.g. a CUDA graph captured once).
using StepCapture = std::function<std::function<void()>(const std::function<void()>& enqueue)>;
// Another network (made instead of a GpuNetwork): built for `spec` from `init`, for batches of up to
// max_batch, every launch on the extras' stream.
using NetworkMaker = std::function<std::unique_ptr<framework::DeviceNetwork>(
    const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init, int max_batch)>;
struct GpuTrainerExtras {
  std::string program = "train_mnist on the GPU";  // what runs (for the message without a GPU)
  LayerMaker layers;                       // builds the layers GpuNetwork does not have
  const DeviceUpdateRule* rule = nullptr;  // an optimizer DeviceOptimizer does not have
  LossMaker loss;                          // a loss other than this lesson's
  // Another network instead (layers and loss are then unused), what the first line calls it, and
  // what the lines after the layers say of it (each line ends with '\n'; "" : nothing).
  NetworkMaker network;
  std::string network_text;
  std::function<std::string()> describe;
  // Before anything trains: checks of a lesson's steps on the network (they throw their TODO).
  std::function<void(framework::DeviceNetwork&)> check_steps;
  // Where every launch of a training step goes (nullptr: the default stream; else the network is
  // set to it, so every layer and the loss must run on a stream), and, with `capture`, how each
  // stretch of framework::kReportEvery steps is replayed, turned so once before the first epoch. What is
  // captured bakes in its arguments: the step within the epoch, never the epoch.
  cudaStream_t stream = nullptr;
  StepCapture capture;
  std::string steps_text;  // how the steps run, for the trainer's first lines ("" : says nothing)
  // A second stream beside the step: called once forward_backward has returned, returns where the
  // loss sum and the accuracy count go (its gradients must be done there: they are read by the
  // update); after_update is called once the update is enqueued. Unset: all on `stream`.
  std::function<cudaStream_t()> counters_stream;
  std::function<void()> after_update;
  // --profile one whole step, kernel by kernel and replayed from a graph this captures (framework's
  // step profile), instead of lesson 08's layer by layer.
  framework::StepCapture profile_capture;
};
framework::TrainSummary train_on_gpu(const GpuTrainConfig& config, const framework::TrainingData& data,
                                     const GpuTrainerExtras& extras = {});

}  // namespace mnist_gpu
