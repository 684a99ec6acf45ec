#pragma once
// --profile: where a training step's time goes, layer by layer. Each step runs the network's own
// forward_backward (the one that trains), with a CUDA event recorded where every layer's and the
// loss's pass starts (GpuNetwork::set_observer), then each layer's parameter update as its own
// launch, for `steps` steps after a warm-up; the weights and the optimizer state are restored
// afterwards, so profiling does not change the training run.
// It waits for the GPU after every step: that is allowed here, the user asked for a report.
#include <cstdio>

#include "device_data.hpp"
#include "network.hpp"
#include "optimizer.hpp"

namespace mnist_gpu {

void print_profile(std::FILE* out, GpuNetwork& net, DeviceOptimizer& optimizer, const DeviceDataset& train,
                   int batch, int steps, int warmup = 10);

}  // namespace mnist_gpu
