#pragma once
// The lesson program's network, in double:
//   image [N,1,28,28] -> conv 3x3 (4 channels) -> ReLU -> max-pool 2x2 -> dense 676 -> 10 -> softmax-CE
// forward() keeps what backward() needs; backward() fills one gradient per parameter tensor.
#include <cstdint>
#include <string>
#include <vector>

#include "host_layers.hpp"

namespace lesson01 {

// One parameter tensor and its gradient, for printing and gradient checks.
struct ParamTensor {
  std::string name;
  std::vector<int> shape;
  std::vector<double>* value;
  std::vector<double>* grad;
};

class TinyNet {
 public:
  static constexpr int kChannels = 4, kKernel = 3, kPool = 2, kClasses = 10;

  // Seeded random weights (He-style scales), for images of batch x 1 x height x width.
  TinyNet(int batch, int height, int width, uint64_t seed);

  // Mean cross-entropy over the batch; keeps the activations for backward().
  double forward(const std::vector<double>& images, const std::vector<int>& labels);
  // Gradients of the last forward()'s loss with respect to every parameter.
  void backward(const std::vector<double>& images, const std::vector<int>& labels);

  std::vector<ParamTensor> parameters();
  const std::vector<double>& probabilities() const { return probs_; }
  std::string describe() const;  // the layer shapes, one line

 private:
  host_layers::ConvShape conv_;
  host_layers::PoolShape pool_;
  int features_;  // dense inputs per image: channels * pooled height * pooled width
  std::vector<double> conv_w_, conv_b_, dense_w_, dense_b_;
  std::vector<double> grad_conv_w_, grad_conv_b_, grad_dense_w_, grad_dense_b_;
  // Activations of the last forward pass.
  std::vector<double> conv_out_, relu_out_, pool_out_, logits_, probs_;
  std::vector<int> argmax_;
};

}  // namespace lesson01
