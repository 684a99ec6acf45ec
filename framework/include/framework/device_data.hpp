#pragma once
// The course framework: a data set in device memory, uploaded once before training. The GPU
// trainers gather their minibatches from it on the device, so a step copies nothing from the host.
#include "course/device_buffer.hpp"
#include "course/idx.hpp"

namespace framework {

struct DeviceDataset {
  explicit DeviceDataset(const course::Dataset& host);
  course::DeviceBuffer<float> images;  // count x per_example, pixel / 255
  course::DeviceBuffer<int> labels;    // count
  int count = 0;
  int per_example = 0;                 // C*H*W
};

}  // namespace framework
