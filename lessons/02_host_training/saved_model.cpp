// Lesson 02 (given code): a HostNetwork's logits for --save (saved_model.hpp).
#include "saved_model.hpp"

#include <algorithm>

namespace host_training {

std::vector<float> logits_of(HostNetwork& net, const course::Dataset& data, int batch) {
  const int n = data.count(), classes = net.spec().classes;
  const size_t plane = n ? data.images.size() / size_t(n) : 0;
  std::vector<float> logits(size_t(n) * classes);
  for (int first = 0; first < n; first += batch) {
    const int count = std::min(batch, n - first);
    net.forward(data.images.data() + size_t(first) * plane, count, logits.data() + size_t(first) * classes);
  }
  return logits;
}

}  // namespace host_training
