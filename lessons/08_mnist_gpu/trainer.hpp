#pragma once
// The GPU trainer of train_mnist: this lesson's network, optimizer and training step.
//
// Per step, all on the device and without the host waiting (trainer.cpp, run.step):
//   gather (08.7) -> forward + loss + backward (the framework's chain of the layers of 08.1-08.5)
//   -> loss sum and NaN flag (08.8) -> right answers of the batch (08.8) -> optimizer: ONE launch (lesson 03 SGD
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
#include "course/cli.hpp"
#include "framework/train_flags.hpp"
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
    default_sgd_lr = 0.05f;  // the setting of the measured runs (docs/results/08_mnist_gpu.md)
  }
  ConvAlgorithm conv = ConvAlgorithm::automatic;
};

// Trains on `data` (loaded and checked by framework::load_training_data(config)), evaluates
// after every epoch, writes the files. Throws course::Error on bad input, out of device memory or a
// NaN loss. The per-epoch numbers are the framework's TrainSummary (the CPU trainer reports through
// the same EpochLog).
// extras: what a later lesson plugs in; empty: this lesson's alone. What the framework's run takes
// (framework::DeviceRun: another network, its first lines, checks of a lesson's steps, a stream and
// a replay of the steps, a step profile) is handed on as given; this lesson fills what is left unset
// (its GpuNetwork, its optimizer, its step and evaluation). Beside those, what plugs into this
// lesson's network, optimizer and step:
struct GpuTrainerExtras : framework::DeviceRun {
  GpuTrainerExtras() { program = "train_mnist on the GPU"; }
  LayerMaker layers;                       // builds the layers GpuNetwork does not have
  const DeviceUpdateRule* rule = nullptr;  // an optimizer DeviceOptimizer does not have
  LossMaker loss;                          // a loss other than this lesson's
  // A second stream beside the step: called once forward_backward has returned, returns where the
  // loss sum and the accuracy count go (its gradients must be done there: they are read by the
  // update); after_update is called once the update is enqueued. Unset: all on `stream`.
  std::function<cudaStream_t()> counters_stream;
  std::function<void()> after_update;
  // What counts as a right answer, for a task whose outputs are not classes (a box regression):
  // counted in the step, the evaluation and the profile in place of 08.8's argmax against the label.
  // Unset: 08.8's.
  decltype(framework::StepKernels::count_correct) count_correct;
};
framework::TrainSummary train_on_gpu(const GpuTrainConfig& config, const framework::TrainingData& data,
                                     const GpuTrainerExtras& extras = {});

// train_mnist's flags: the framework's common ones (with `words`: --out's default, notes; and
// --profile, --profile-steps) and this trainer's own (--conv); and the config they give (flags not given
// keep GpuTrainConfig's defaults).
void add_gpu_train_flags(course::ArgParser& args, framework::TrainFlagWords words);
GpuTrainConfig gpu_train_config(const course::ArgParser& args);

}  // namespace mnist_gpu
