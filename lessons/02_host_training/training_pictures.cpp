// Lesson 02 (given code): the first layer's filters of a trained HostNetwork (the other pictures of a
// run are the framework's, run_pictures.hpp).
#include "training_pictures.hpp"

#include "framework/run_pictures.hpp"

namespace host_training {

bool write_filters_png(const std::string& path, const HostNetwork& net) {
  const LayerPlan& first = net.plan().front();
  if (first.weight < 0) return false;
  const Parameter& w = net.parameters()[size_t(first.weight)];
  return framework::write_filters_png(path, first, w.name, w.value.data());
}

}  // namespace host_training
