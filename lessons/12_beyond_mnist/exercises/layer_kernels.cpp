// Lesson 12, step 12.4: which kernels run each layer of a layer list on the GPU. YOUR FILE.
// The choices and the reasons are in layer_kernels.hpp; the rules are in the README (12.4).
// Uncomment the parameter names when you write it.
#include <string>
#include <vector>

#include "course/error.hpp"
#include "fast_gpu_layers.hpp"  // runs_tiled_conv, conv_is_dense
#include "layer_kernels.hpp"

namespace beyond_mnist {

using host_training::LayerKind;

LayerKernels choose_kernels(const std::vector<host_training::LayerPlan>& plans, size_t index, GpuLayers /*layers*/,
                            std::string* /*why*/) {
  if (index >= plans.size())
    throw course::Error("choose_kernels: layer " + std::to_string(index + 1) + " of a network of " +
                        std::to_string(plans.size()) + " layers");
  // TODO(12.4): return the kernels of plans[index]: your sigmoid, tanh and dropout in both networks;
  // lesson 08's for the rest when `layers` says so; else lesson 09's where their assumptions hold
  // (the conv's stride, a pool's windows and the sign of its input, a relu's next layer), lesson
  // 08's with the reason in *why where they do not.
  course::todo("12.4", "choose_kernels (which kernels run each layer)");
}

}  // namespace beyond_mnist
