#pragma once
// Lesson 12 (given): lesson 09's faster kernels as layers of lesson 08's GPU network, so that any
// network a layer list describes trains on them: a convolution on 09.10/09.11's tiled kernels
// (stride 1, 3x3 or 5x5, at least 8 input channels: conv_tiled_problem) or else 09.2-09.4's implicit
// GEMM (stride 1, in_c * k * k >= 64); a dense layer on 09.7's fused products. What neither runs
// (a strided or thin convolution) stays lesson 08's. Built from lesson 09's solutions.
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
  // Throws course::Error when the shape is one neither kernel runs (runs_fast_conv is false).
  FastConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                mnist_gpu::ParamView bias, bool input_grad);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return tiled_ ? "tiled (lesson 09)" : "implicit GEMM (lesson 09)"; }

 private:
  host_layers::ConvShape shape(int batch) const;
  mnist_gpu::ParamView weight_, bias_;
  bool input_grad_, tiled_;
  course::DeviceBuffer<float> tiled_weights_, workspace_;
};

class FastDenseLayer : public mnist_gpu::Layer {
 public:
  FastDenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, mnist_gpu::ParamView weight,
                 mnist_gpu::ParamView bias, bool input_grad);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  std::string kernels() const override { return "fused (lesson 09)"; }

 private:
  mnist_gpu::ParamView weight_, bias_;
  bool input_grad_;
  course::DeviceBuffer<float> workspace_;
};

// Whether lesson 09's kernels run this convolution (tiled or implicit GEMM).
bool runs_fast_conv(const host_training::LayerPlan& plan);

}  // namespace beyond_mnist
