#pragma once
// The test set through the GPU network: loss, accuracy (step 08.9's kernels), every logit and
// prediction (for the pictures and test_logits.npy) and the confusion matrix.
#include <vector>

#include "framework/device_data.hpp"
#include "framework/device_network.hpp"

namespace mnist_gpu {

struct GpuEvaluation {
  double loss = 0, accuracy = 0;
  std::vector<int> predictions;  // one per example
  std::vector<float> logits;     // count x classes
  std::vector<int> confusion;    // classes x classes: row = true label, column = predicted
};

// Runs `data` in order through the network (its forward pass and loss, as it is set: set_training(false)
// first, for dropout), max_batch examples at a time. It waits for the GPU once, at the end (an
// evaluation is a report point).
GpuEvaluation evaluate_on_gpu(framework::DeviceNetwork& net, const framework::DeviceDataset& data);

}  // namespace mnist_gpu
