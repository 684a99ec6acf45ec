#pragma once
// Lesson 15 (given): a host network that runs every layer a layer list can name, lesson 15's bn,
// globalavg and res(...) blocks included: the framework's chain of host layers (HostStack) on this
// lesson's layers (deeper_host_layers.hpp: lesson 11's convolutions and dense layers, lesson 01's relu
// and max-pool, lesson 12's sigmoid, tanh and dropout, your 15.1 batch norm and 15.5 global average
// pooling). The framework's CPU trainer takes it as it takes lesson 02's HostNetwork, so
// train_deeper --device cpu trains with it.
//
// A res block is one layer whose passes run two lists of layers: its body and its shortcut (empty:
// the input itself; else the 1x1 projection and batch norm plan_layers put there).
//   forward:  y = body(x) + shortcut(x)
//   backward: dL/dx = (dL/dx through the body) + (dL/dx through the shortcut): x fed both paths.
// Batch norm normalises with the batch's statistics in forward_backward (training) and with its
// running statistics in forward (evaluation), as PyTorch's train() and eval().
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "deeper_host_layers.hpp"
#include "host_training.hpp"

namespace deeper_cnns {

// The layer kinds this lesson's networks run, on the CPU and the GPU: every kind of the model
// language (lesson 12's and batch norm, global average pooling and residual blocks).
const framework::LayerKinds& layer_kinds();

// PyTorch's BatchNorm2d defaults.
constexpr float kBatchNormEps = 1e-5f, kBatchNormMomentum = 0.1f;

// The framework's host network (framework::HostStack) on the layers deeper_host_layers() registers.
class DeeperHostNetwork : public framework::HostStack {
 public:
  // threads >= 1 (lesson 11's layers); dropout draws from dropout_seed as lesson 12's host network
  // does, the layer counted in all_layers' order. Throws course::Error for parameters that do not
  // fit the spec.
  DeeperHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                    uint64_t dropout_seed = 0);

  // Batch norm layer k's (counted from 0 in all_layers' order) running statistics [channels].
  const std::vector<float>& running_mean(size_t k) const;
  const std::vector<float>& running_var(size_t k) const;
  size_t batch_norm_layers() const { return norms_.size(); }

 private:
  std::vector<float> workspace_;              // lesson 11's convolutions
  std::vector<const BatchNormOnCpu*> norms_;  // all_layers' order
};

// For host_training::train: DeeperHostNetworks on `threads` threads.
host_training::NetworkMaker network_maker(int threads, uint64_t seed);
std::string network_description(int threads);

}  // namespace deeper_cnns
