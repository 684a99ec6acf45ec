#pragma once
// The layers of the GPU network, one object each (as in DLFS's layers.py): a forward, a backward,
// and the device buffers they write, sized once for the largest batch so that a training step
// allocates nothing.
//
//   layer i:  forward(x, batch)        reads x (the previous layer's output, or the input batch)
//                                      writes output()                   [batch x out_size]
//             backward(x, dy, batch)   reads the same x and dy = dL/d output()
//                                      writes input_grad() = dL/dx       [batch x in_size]
//                                      and, for conv and dense, the parameter gradients
//
// Backward passes OVERWRITE what they write (as lesson 01's do), so nothing is zeroed per step.
// The forward and backward bodies are step 08.4 (exercises/network_passes.cpp): each one is a
// call or two of a function from lessons 03-07.
#include <cstddef>
#include <memory>
#include <string>

#include "course/device_buffer.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"

namespace mnist_gpu {

// How a convolution runs: lesson 05's direct kernels, lesson 07's im2col + GEMM, or `automatic`:
// each layer picks one of the two by its shape (choose_conv_algorithm).
enum class ConvAlgorithm { direct, im2col, automatic };
ConvAlgorithm conv_algorithm_by_name(const std::string& name);  // "direct" | "im2col" | "auto", else throws
const char* conv_algorithm_name(ConvAlgorithm algorithm);
// The algorithm a conv layer runs when `requested` is asked for: requested itself unless it is
// automatic; then direct when the im2col GEMM's inner dimension (in_c * k * k) is below
// kDirectBelowK, where that GEMM is too thin to pay for the col buffer (model A's conv1: K = 25,
// see the --profile tables in docs/results.md), im2col otherwise. A rule of the shape, not a timing,
// so the same command always trains the same way.
inline constexpr int kDirectBelowK = 64;
ConvAlgorithm choose_conv_algorithm(ConvAlgorithm requested, const host_training::LayerPlan& plan);

// Told when a pass of a layer or of the loss starts: --profile records a CUDA event there, so it
// times the network's own forward_backward. Every pass opens with check_batch, which tells it;
// without an observer (training) that costs one null test.
class PassObserver {
 public:
  virtual ~PassObserver() = default;
  // who: the layer's name, or SoftmaxCrossEntropy::name(); backward: false for a forward pass.
  virtual void pass_starts(const std::string& who, bool backward) = 0;
};

class Layer {
 public:
  Layer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  virtual void forward(const float* x, int batch) = 0;
  virtual void backward(const float* x, const float* dy, int batch) = 0;

  const std::string& name() const { return name_; }
  const host_training::LayerPlan& plan() const { return plan_; }
  int max_batch() const { return max_batch_; }
  float* output() { return out_.data(); }
  const float* output() const { return out_.data(); }
  float* input_grad() { return din_.data(); }
  size_t in_size() const { return plan_.in_size(); }    // values per example
  size_t out_size() const { return plan_.out_size(); }
  void set_observer(PassObserver* observer) { observer_ = observer; }  // nullptr: none

 protected:
  // 1 <= batch <= max_batch, else throws; what: "forward" or "backward". Tells the observer first.
  void check_batch(int batch, const char* what) const;

  std::string name_;
  host_training::LayerPlan plan_;
  int max_batch_;
  course::DeviceBuffer<float> out_, din_;
  PassObserver* observer_ = nullptr;
};

// A parameter tensor's value and gradient inside the ParameterStore.
struct ParamView {
  float* value = nullptr;
  float* grad = nullptr;
};

class ConvLayer : public Layer {
 public:
  // workspace: a device buffer of at least workspace_floats(plan, max_batch, algorithm) floats,
  // shared by every layer of the network (they run one after another on one stream).
  ConvLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, ConvAlgorithm algorithm,
            ParamView weight, ParamView bias, float* workspace);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  host_layers::ConvShape shape(int batch) const;
  ConvAlgorithm algorithm() const { return algorithm_; }
  static size_t workspace_floats(const host_training::LayerPlan& plan, int max_batch, ConvAlgorithm algorithm);

 private:
  ConvAlgorithm algorithm_;
  ParamView weight_, bias_;
  float* workspace_;
};

class ReluLayer : public Layer {
 public:
  using Layer::Layer;
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
};

// Lesson 06's argmax variant: the forward pass stores, per output, the index of its window's
// first maximum; the backward pass sends each dy there (a gather, no atomics).
class MaxPoolLayer : public Layer {
 public:
  MaxPoolLayer(std::string name, const host_training::LayerPlan& plan, int max_batch);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;
  host_layers::PoolShape shape(int batch) const;

 private:
  course::DeviceBuffer<int> argmax_;
};

// y [batch x out] = x [batch x in] * W^T + bias; x is the NCHW output of the layer before,
// each example's C*H*W values one row (a flatten costs nothing).
class DenseLayer : public Layer {
 public:
  DenseLayer(std::string name, const host_training::LayerPlan& plan, int max_batch, ParamView weight,
             ParamView bias);
  void forward(const float* x, int batch) override;
  void backward(const float* x, const float* dy, int batch) override;

 private:
  ParamView weight_, bias_;
};

// Softmax + cross-entropy on the logits (lesson 04): not a Layer (it has labels and a loss).
class SoftmaxCrossEntropy {
 public:
  SoftmaxCrossEntropy(int classes, int max_batch);
  // probs() = softmax(logits), row_loss()[b] = -log probs[b][labels[b]].
  void forward(const float* logits, const int* labels, int batch);
  // logits_grad() = (probs - onehot(labels)) / batch: the gradient of the MEAN loss.
  void backward(const int* labels, int batch);

  int classes() const { return classes_; }
  const float* probs() const { return probs_.data(); }
  const float* row_loss() const { return row_loss_.data(); }
  float* logits_grad() { return dlogits_.data(); }
  static const std::string& name();  // "loss", as a PassObserver sees it
  void set_observer(PassObserver* observer) { observer_ = observer; }

 private:
  void check_batch(int batch, const char* what) const;  // as Layer's
  int classes_, max_batch_;
  PassObserver* observer_ = nullptr;
  course::DeviceBuffer<float> probs_, row_loss_, dlogits_;
};

}  // namespace mnist_gpu
