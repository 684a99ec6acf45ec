#pragma once
// --profile: where a training step's time goes, layer by layer: the framework's profile
// (framework/pass_profile.hpp) of this network's own forward_backward (GpuNetwork::set_observer),
// with each layer's parameter update as its own launch, for `steps` steps after a warm-up. The
// weights and the optimizer state are restored afterwards, so profiling does not change the run.
#include <cstdio>

#include "framework/device_data.hpp"
#include "network.hpp"
#include "optimizer.hpp"

namespace mnist_gpu {

void print_profile(std::FILE* out, GpuNetwork& net, DeviceOptimizer& optimizer, const framework::DeviceDataset& train,
                   int batch, int steps, int warmup = 10);

}  // namespace mnist_gpu
