#pragma once
// What every layer of the GPU network shares is the framework's (framework/layer_stack.hpp: read
// its contract first): a forward, a backward, and the device buffers they write, sized once for
// the largest batch. Each kind of layer of this lesson has its own header (conv_layer.hpp,
// relu_layer.hpp, maxpool_layer.hpp, dense_layer.hpp) and its passes in its own exercise file.
#include "framework/layer_stack.hpp"

namespace mnist_gpu {

using Layer = framework::DeviceLayer;
using ParamView = framework::ParamView;  // a parameter's value and gradient inside the store
// Told when a pass of a layer or of the loss starts (--profile records a CUDA event there).
using PassObserver = framework::PassObserver;

}  // namespace mnist_gpu
