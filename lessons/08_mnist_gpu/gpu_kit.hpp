#pragma once
// Lesson 08's part of the GPU trainer. The trainer is the framework's (framework/gpu_trainer.hpp:
// the step, the epochs, the reports, the files); this lesson registers with it what is its own:
//   the network   GpuNetwork (network.hpp): the layers of 08.1 and the loss, chained by the
//                 framework's LayerStack
//   the step's kernels   the batch's gather (08.3), the loss sum and the right answers (08.4)
//   the update rules     lesson 03's SGD with momentum and 08.2's Adam
//   the epoch's order    lesson 02's, so that the CPU trainer sees the same batches
// and train_mnist's settings: the framework's GPU defaults and --conv.
#include "conv_layer.hpp"
#include "course/cli.hpp"
#include "framework/gpu_trainer.hpp"
#include "framework/train_flags.hpp"
#include "network.hpp"

namespace mnist_gpu {

// This lesson's kit. layers and extra_loss: a later lesson's layers (its makers, this lesson's
// among them) and loss (GpuNetwork); a later lesson's update rule goes at the end of the kit's rules.
framework::GpuKit gpu_kit(ConvAlgorithm conv, std::shared_ptr<const framework::DeviceLayerMakers> layers = nullptr,
                          const LossMaker& extra_loss = nullptr);

// train_mnist's settings: the framework's GPU defaults and the convolution algorithm.
struct TrainMnistConfig : framework::GpuTrainConfig {
  ConvAlgorithm conv = ConvAlgorithm::automatic;
};

// train_mnist's flags: the framework's common ones (with `words`: --out's default, notes; and
// --profile, --profile-steps) and --conv; and the config they give (flags not given keep
// TrainMnistConfig's defaults).
void add_train_mnist_flags(course::ArgParser& args, framework::TrainFlagWords words);
TrainMnistConfig train_mnist_config(const course::ArgParser& args);

}  // namespace mnist_gpu
