#pragma once
// The test set through the GPU network: loss, accuracy (step 08.9's kernels), every logit and
// prediction (for the pictures and test_logits.npy) and the confusion matrix.
#include <vector>

#include "framework/device_data.hpp"
#include "framework/device_network.hpp"
#include "framework/device_trainer.hpp"

namespace mnist_gpu {

// loss, accuracy, every prediction and logit, the confusion matrix (the framework's).
using GpuEvaluation = framework::DeviceEvaluation;

// Runs `data` in order through the network (its forward pass and loss, as it is set: set_training(false)
// first, for dropout), max_batch examples at a time. It waits for the GPU once, at the end (an
// evaluation is a report point).
GpuEvaluation evaluate_on_gpu(framework::DeviceNetwork& net, const framework::DeviceDataset& data);

}  // namespace mnist_gpu
