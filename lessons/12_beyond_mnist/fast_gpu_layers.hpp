#pragma once
// Lesson 12 (given): lesson 09's faster kernels as layers of lesson 08's GPU network, so that any
// network a layer list describes trains on them: a convolution on 09.10/09.11's tiled kernels
// (stride 1, 3x3 or 5x5, at least 8 input channels, small images: conv_tiled_problem), a dense
// layer on 09.7's fused products. Other convolutions stay lesson 08's. Built from lesson 09's
// solutions.
// The first layer's input gradient is not computed: nobody reads it.
#include <cstddef>
#include <memory>
#include <string>

#include "course/device_buffer.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"
#include "layer.hpp"

namespace beyond_mnist {

class FastConvLayer : public mnist_gpu::Layer {
 public:
  // Throws course::Error when the tiled kernels do not run the shape (runs_fast_conv is false).
  FastConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                mnist_gpu::ParamView bias, bool input_grad);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return "tiled (lesson 09)"; }
  size_t own_bytes() const override { return (tiled_weights_.size() + workspace_.size()) * sizeof(float); }

 private:
  host_layers::ConvShape shape(int batch) const;
  mnist_gpu::ParamView weight_, bias_;
  bool input_grad_;
  course::DeviceBuffer<float> tiled_weights_, workspace_;
};

class FastDenseLayer : public mnist_gpu::Layer {
 public:
  FastDenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                 mnist_gpu::ParamView bias, bool input_grad);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return "fused (lesson 09)"; }
  size_t own_bytes() const override { return workspace_.size() * sizeof(float); }

 private:
  mnist_gpu::ParamView weight_, bias_;
  bool input_grad_;
  course::DeviceBuffer<float> workspace_;
};

// Whether lesson 09's tiled kernels run this convolution.
bool runs_fast_conv(const host_training::LayerPlan& plan);

}  // namespace beyond_mnist
