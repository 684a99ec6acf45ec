// Lesson 12, step 12.4: which kernels run each layer of a layer list on the GPU.
#include <string>
#include <vector>

#include "course/error.hpp"
#include "fast_gpu_layers.hpp"  // runs_tiled_conv, conv_is_dense
#include "layer_kernels.hpp"

namespace beyond_mnist {

using host_training::LayerKind;

namespace {

// Whether layer `last`'s output can never be negative: a relu or a sigmoid wrote it, and only
// max-pools and dropouts (which keep the sign) came after it.
bool never_negative(const std::vector<host_training::LayerPlan>& plans, size_t last) {
  for (size_t i = last + 1; i-- > 0;) {
    const LayerKind kind = plans[i].spec.kind;
    if (kind == LayerKind::relu || kind == LayerKind::sigmoid) return true;
    if (kind != LayerKind::maxpool && kind != LayerKind::dropout) return false;
  }
  return false;  // the network's input: its pixels may have been shifted below 0
}

}  // namespace

LayerKernels choose_kernels(const std::vector<host_training::LayerPlan>& plans, size_t index, GpuLayers layers,
                            std::string* why) {
  if (index >= plans.size())
    throw course::Error("choose_kernels: layer " + std::to_string(index + 1) + " of a network of " +
                        std::to_string(plans.size()) + " layers");
  const host_training::LayerPlan& plan = plans[index];
  auto lesson08 = [why](const char* reason) {
    if (why) *why = reason;
    return LayerKernels::lesson08;
  };
  // Your layers run in both networks.
  if (plan.spec.kind == LayerKind::sigmoid || plan.spec.kind == LayerKind::tanh) return LayerKernels::activation;
  if (plan.spec.kind == LayerKind::dropout) return LayerKernels::dropout;
  if (layers == GpuLayers::lesson08) return lesson08(kAskedForLesson08);
  switch (plan.spec.kind) {
    case LayerKind::dense: return LayerKernels::dense;
    case LayerKind::conv:
      if (runs_tiled_conv(plan)) return LayerKernels::tiled_conv;
      if (conv_is_dense(plan)) return LayerKernels::dense;
      // The implicit GEMMs' input gradient needs stride 1; the first layer has none to compute.
      if (plan.spec.stride == 1 || index == 0) return LayerKernels::implicit_conv;
      return lesson08(kStridedInputGradient);
    case LayerKind::relu: {
      // 09.5's pool folds a ReLU in: a pool right after that runs on it does this relu's work too.
      const bool pool_next = index + 1 < plans.size() && plans[index + 1].spec.kind == LayerKind::maxpool &&
                             choose_kernels(plans, index + 1, layers) == LayerKernels::relu_pool;
      return pool_next ? LayerKernels::folded_relu : LayerKernels::relu_pool;
    }
    case LayerKind::maxpool:
      if (plan.spec.stride != plan.spec.window) return lesson08(kPoolWindowsOverlap);
      // The ReLU 09.5 folds in changes nothing only where the input is never negative.
      if (index == 0 || !never_negative(plans, index - 1)) return lesson08(kPoolInputCanBeNegative);
      return LayerKernels::relu_pool;
    default: break;  // sigmoid, tanh and dropout: chosen above
  }
  throw course::Error("choose_kernels: layer " + std::to_string(index + 1) + " is of a kind it does not know");
}

}  // namespace beyond_mnist
