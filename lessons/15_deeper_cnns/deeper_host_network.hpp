#pragma once
// Lesson 15 (given): a host network that runs every layer a layer list can name, lesson 15's bn,
// globalavg and res(...) blocks included. Convolutions and dense layers run on lesson 11's threaded
// layers, relu and max-pool on lesson 01's, sigmoid, tanh and dropout on lesson 12's; batch norm is
// your 15.1 and global average pooling your 15.5. Lesson 02's trainer, evaluation and pictures take
// it as they take any HostNetwork, so train_deeper --device cpu trains with it.
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

#include "host_training.hpp"

namespace deeper_cnns {

// The layer kinds this lesson's networks run, on the CPU and the GPU: every kind of the model
// language (lesson 12's and batch norm, global average pooling and residual blocks).
const framework::LayerKinds& layer_kinds();

// PyTorch's BatchNorm2d defaults.
constexpr float kBatchNormEps = 1e-5f, kBatchNormMomentum = 0.1f;

class DeeperHostNetwork : public host_training::HostNetwork {
 public:
  // threads >= 1 (lesson 11's layers); dropout draws from dropout_seed as lesson 12's host network
  // does, the layer counted in all_layers' order. Throws course::Error for parameters that do not
  // fit the spec.
  DeeperHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                    uint64_t dropout_seed = 0);
  void forward(const float* x, int batch, float* logits) override;
  float forward_backward(const float* x, const int* labels, int batch) override;

  // Batch norm layer k's (counted from 0 in all_layers' order) running statistics [channels].
  const std::vector<float>& running_mean(size_t k) const;
  const std::vector<float>& running_var(size_t k) const;
  size_t batch_norm_layers() const { return norms_.size(); }
  // Every batch norm's running mean and variance, named for --save (framework::running_statistics).
  std::vector<host_training::Parameter> running_tensors() const override;

 private:
  // What one layer (all_layers' order) keeps between its passes.
  struct LayerState {
    std::vector<float> out, din;         // batch x out_size, batch x in_size
    std::vector<int> argmax;             // max-pool
    std::vector<float> mean, inv_std;    // batch norm: the last training pass's statistics
    std::vector<float> run_mean, run_var;
  };
  const float* forward_list(const std::vector<host_training::LayerPlan>& list, size_t first, const float* x, int batch,
                            bool training);
  void forward_layer(const host_training::LayerPlan& p, size_t at, const float* x, int batch, bool training);
  // Returns dL/d(the list's input) (not written when input_grad is false).
  const float* backward_list(const std::vector<host_training::LayerPlan>& list, size_t first, const float* x,
                             const float* dy, int batch, bool input_grad);
  void backward_layer(const host_training::LayerPlan& p, size_t at, const float* x, const float* dy, int batch,
                      bool input_grad);
  float* param(const host_training::LayerPlan& p, int offset) { return params_[size_t(p.weight + offset)].value.data(); }
  float* grad(const host_training::LayerPlan& p, int offset) { return params_[size_t(p.weight + offset)].grad.data(); }

  int threads_;
  uint64_t dropout_seed_;
  uint64_t passes_ = 0;             // calls of forward_backward so far: dropout's step
  std::vector<LayerState> state_;   // one a layer, all_layers' order
  std::vector<size_t> norms_;       // the batch norm layers' places in state_
  std::vector<float> workspace_;    // lesson 11's convolutions
  std::vector<float> dlogits_;
};

// For host_training::train: DeeperHostNetworks on `threads` threads.
host_training::NetworkMaker network_maker(int threads, uint64_t seed);
std::string network_description(int threads);

}  // namespace deeper_cnns
