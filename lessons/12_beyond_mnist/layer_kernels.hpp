#pragma once
// Lesson 12, step 12.4: which kernels run each layer of a layer list on the GPU. A kernel of lesson
// 09 runs a layer only where its assumptions hold, and some of them are about the layer's
// neighbours: whether the input of a max-pool can be negative, whether a relu has a pool right after
// it that can do its work. beyond_gpu_layers (beyond_gpu_layers.hpp) builds what you choose.
#include <cstddef>
#include <string>
#include <vector>

#include "host_training.hpp"

namespace beyond_mnist {

// Which GPU layers build a network: lesson 08's for conv, relu, max-pool and dense, or lesson 09's
// kernels wherever they run them (fast_gpu_layers.hpp). Sigmoid, tanh and dropout are yours in both.
enum class GpuLayers { lesson08, lesson09 };

// The kernels that run one layer, and the layer beyond_gpu_layers builds for them.
enum class LayerKernels {
  lesson08,       // lesson 08's layer of the kind (conv, relu, max-pool or dense)
  tiled_conv,     // FastConvLayer: 09.10/09.11's tiled kernels
  implicit_conv,  // ImplicitConvLayer: 09.2-09.4's implicit GEMMs
  dense,          // FastDenseLayer: 09.7's fused products (a dense layer, or a conv that is one)
  relu_pool,      // ReluPoolLayer: 09.5's ReLU max-pool, for a relu or a max-pool
  folded_relu,    // FoldedReluLayer: a relu whose work the max-pool right after it (relu_pool) does
  activation,     // ActivationLayer: your sigmoid or tanh (12.1)
  dropout,        // DropoutLayer: your dropout (12.2)
};

// Why a layer runs on lesson 08's kernels: what *why of choose_kernels says, one of these.
inline constexpr const char* kAskedForLesson08 = "--gpu-layers lesson08";
inline constexpr const char* kStridedInputGradient = "a strided convolution's input gradient";
inline constexpr const char* kPoolWindowsOverlap = "its windows overlap";
inline constexpr const char* kPoolInputCanBeNegative = "its input can be negative: lesson 09's pool folds a ReLU in";

// Step 12.4: the kernels of layer `index` of `plans` (host_training::plan_layers of a network) when
// the network is built from `layers`. When they are lesson 08's and `why` is not null, *why says why
// (one of the k... above); otherwise *why is left as it is. Throws course::Error when index is not a
// layer of plans.
LayerKernels choose_kernels(const std::vector<host_training::LayerPlan>& plans, size_t index, GpuLayers layers,
                            std::string* why = nullptr);

// The name of the enumerator ("tiled_conv"), for messages and tables.
const char* kernels_name(LayerKernels kernels);

}  // namespace beyond_mnist
