#pragma once
// The test set through a GPU network (the framework's evaluation, framework/device_trainer.hpp),
// counted with this lesson's kernels: the loss sum and the right answers of 08.4.
#include "framework/device_data.hpp"
#include "framework/device_network.hpp"
#include "framework/device_trainer.hpp"

namespace mnist_gpu {

// loss, accuracy, every prediction and logit, the confusion matrix (the framework's).
using GpuEvaluation = framework::DeviceEvaluation;

// This lesson's gather (08.3), loss sum and right answers (08.4), as the framework calls them (the
// evaluation, the layer profile).
framework::StepKernels step_kernels();

// Runs `data` in order through the network (set_training(false) first, for dropout), max_batch
// examples at a time; waits for the GPU once, at the end.
GpuEvaluation evaluate_on_gpu(framework::DeviceNetwork& net, const framework::DeviceDataset& data);

}  // namespace mnist_gpu
