#pragma once
// The test set through the GPU network: loss, accuracy (step 08.9's kernels), every logit and
// prediction (for the pictures and test_logits.npy) and the confusion matrix.
#include <functional>
#include <vector>

#include "device_data.hpp"
#include "network.hpp"

namespace mnist_gpu {

struct GpuEvaluation {
  double loss = 0, accuracy = 0;
  std::vector<int> predictions;  // one per example
  std::vector<float> logits;     // count x classes
  std::vector<int> confusion;    // classes x classes: row = true label, column = predicted
};

// What an evaluation needs of a network (any network that can say this evaluates through it).
struct EvaluationTarget {
  int classes = 0, max_batch = 0;
  size_t input_size = 0;  // values per example
  // Forward pass and loss of `count` examples: afterwards logits() and row_loss() hold the results.
  std::function<void(const float* x, const int* labels, int count)> forward_and_loss;
  std::function<const float*()> logits, row_loss;
};

// Runs `data` in order through the network, max_batch examples at a time. It waits for the GPU
// once, at the end (an evaluation is a report point).
GpuEvaluation evaluate_on_gpu(const EvaluationTarget& net, const DeviceDataset& data);
GpuEvaluation evaluate_on_gpu(GpuNetwork& net, const DeviceDataset& data);
// This network as an evaluation target: its forward pass and loss, as it is set (set_training(false)
// first, for dropout).
EvaluationTarget evaluation_target(GpuNetwork& net);

}  // namespace mnist_gpu
