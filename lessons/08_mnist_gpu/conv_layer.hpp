#pragma once
// The convolution layer: lesson 05's direct kernels or lesson 07's im2col + GEMM, chosen per
// layer. Its forward and backward are step 08.1 (exercises/conv_layer.cpp); the constructor,
// shape and workspace size are given (conv_layer_setup.cpp).
#include <cstddef>
#include <string>

#include "host_layers.hpp"
#include "host_training.hpp"
#include "layer.hpp"

namespace mnist_gpu {

// How a convolution runs: lesson 05's direct kernels, lesson 07's im2col + GEMM, or `automatic`:
// each layer picks one of the two by its shape (choose_conv_algorithm).
enum class ConvAlgorithm { direct, im2col, automatic };
ConvAlgorithm conv_algorithm_by_name(const std::string& name);  // "direct" | "im2col" | "auto", else throws
const char* conv_algorithm_name(ConvAlgorithm algorithm);
// The algorithm a conv layer runs when `requested` is asked for: requested itself unless it is
// automatic; then direct when the im2col GEMM's inner dimension (in_c * k * k) is below
// kDirectBelowK, where that GEMM is too thin to pay for the col buffer (model A's conv1: K = 25,
// see the --profile tables in docs/results/08_mnist_gpu.md), im2col otherwise. A rule of the shape, not a timing,
// so the same command always trains the same way.
inline constexpr int kDirectBelowK = 64;
ConvAlgorithm choose_conv_algorithm(ConvAlgorithm requested, const host_training::LayerPlan& plan);

// y [batch x out_c x out_h x out_w] = conv(x [batch x in_c x in_h x in_w], W) + bias, with the
// kernel, stride and padding of plan.spec; weight W [out_c x in_c x k x k], bias [out_c].
class ConvLayer : public Layer {
 public:
  // workspace: a device buffer of at least workspace_floats(plan, max_batch, algorithm) floats,
  // shared by every layer of the network (they run one after another on one stream); null until
  // use_workspace gives it (GpuNetwork sizes one for all its conv layers once they are made).
  ConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, ConvAlgorithm algorithm,
            ParamView weight, ParamView bias, float* workspace);
  void use_workspace(float* workspace) { workspace_ = workspace; }
  void forward(const float* x, int batch) override;                     // step 08.1
  void backward(const float* x, const float* dy, int batch) override;   // step 08.1
  // Lesson 01's ConvShape of this layer for `batch` examples (what lessons 05 and 07 take).
  host_layers::ConvShape shape(int batch) const;
  // What this layer runs: direct or im2col (never automatic: the constructor has chosen).
  ConvAlgorithm algorithm() const { return algorithm_; }
  static size_t workspace_floats(const host_training::LayerPlan& plan, int max_batch, ConvAlgorithm algorithm);

 private:
  ConvAlgorithm algorithm_;
  ParamView weight_, bias_;
  float* workspace_;
};

}  // namespace mnist_gpu
