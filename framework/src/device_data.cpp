// The course framework: a data set's upload to the GPU.
#include "framework/device_data.hpp"

namespace framework {

DeviceDataset::DeviceDataset(const course::Dataset& host)
    : images(host.images.vec()), labels(host.labels), count(host.count()),
      per_example(host.count() ? static_cast<int>(host.images.size() / size_t(host.count())) : 0) {}

}  // namespace framework
