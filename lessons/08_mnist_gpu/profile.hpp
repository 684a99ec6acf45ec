#pragma once
// --profile: where a training step's time goes, layer by layer. CUDA events are recorded
// between every layer's forward, backward and parameter update (each layer's slice of the
// optimizer runs as its own launch here), for `steps` steps after a warm-up; the weights and the
// optimizer state are restored afterwards, so profiling does not change the training run.
// It waits for the GPU after every step: that is allowed here, the user asked for a report.
#include <cstdio>

#include "device_data.hpp"
#include "network.hpp"
#include "parameters.hpp"

namespace mnist_gpu {

void print_profile(std::FILE* out, GpuNetwork& net, DeviceOptimizer& optimizer, const DeviceDataset& train,
                   int batch, int steps, int warmup = 10);

}  // namespace mnist_gpu
