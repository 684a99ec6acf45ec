#include "saved_model.hpp"

#include <algorithm>

#include "course/atomic_file.hpp"
#include "course/npy.hpp"

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

void save_npy(const std::string& dir, const std::vector<Parameter>& params, const std::vector<float>& test_logits,
              int classes) {
  course::create_folder(dir, "for --save");
  for (const Parameter& p : params) {
    const std::vector<size_t> shape(p.shape.begin(), p.shape.end());
    course::write_npy(dir + "/" + p.name + ".npy", p.value.data(), shape);
  }
  course::write_npy(dir + "/test_logits.npy", test_logits.data(), {test_logits.size() / size_t(classes), size_t(classes)});
}

}  // namespace host_training
