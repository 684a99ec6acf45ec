#pragma once
// A data set in device memory: uploaded once, before training; minibatches are then gathered
// on the GPU (step 08.7), so a training step copies nothing from the host.
#include "course/device_buffer.hpp"
#include "course/idx.hpp"

namespace mnist_gpu {

struct DeviceDataset {
  explicit DeviceDataset(const course::Dataset& host);
  course::DeviceBuffer<float> images;  // count x per_example, pixel / 255
  course::DeviceBuffer<int> labels;    // count
  int count = 0;
  int per_example = 0;                 // C*H*W
};

}  // namespace mnist_gpu
