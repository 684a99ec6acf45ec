#pragma once
// Lesson 12 (given): your sigmoid, tanh and dropout (12.1, 12.2) as host layers of the framework
// (framework/host_layer.hpp), for a network built from a layer list.
#include "framework/host_layer.hpp"

namespace beyond_mnist {

// Registers sigmoid, tanh and dropout. Dropout draws a new mask every training pass from the
// context's seed, the layer's place (all_layers' order) and the training passes so far, as this
// lesson's GPU layers do; evaluation keeps every value.
framework::HostLayerMakers& add_beyond_host_layers(framework::HostLayerMakers& makers);

}  // namespace beyond_mnist
