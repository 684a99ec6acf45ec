#pragma once
// Lesson 02 (given code): the first layer's filters of a HostNetwork; the other pictures of a run
// (misclassified.png, confusion.png) are the framework's (framework/run_pictures.hpp).
#include <string>
#include <vector>

#include "framework/run_pictures.hpp"
#include "host_training.hpp"

namespace host_training {

// filters.png of the network's first layer (framework::write_filters_png); false when it has none.
bool write_filters_png(const std::string& path, const HostNetwork& net);

}  // namespace host_training
