// Lesson 08 (given code): a data set's upload to the GPU.
#include "device_data.hpp"

namespace mnist_gpu {

DeviceDataset::DeviceDataset(const course::Dataset& host)
    : images(host.images.vec()), labels(host.labels), count(host.count()),
      per_example(host.count() ? static_cast<int>(host.images.size() / size_t(host.count())) : 0) {}

}  // namespace mnist_gpu
