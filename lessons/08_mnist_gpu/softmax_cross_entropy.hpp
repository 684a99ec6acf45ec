#pragma once
// Softmax + cross-entropy on the logits (lesson 04): the end of the network. Not a Layer: it takes
// labels and gives a loss per example. Its forward and backward are step 08.1
// (exercises/softmax_cross_entropy.cpp); the constructor, name and batch check are given
// (softmax_cross_entropy_setup.cpp).
#include <string>

#include "course/device_buffer.hpp"
#include "layer.hpp"

namespace mnist_gpu {

class SoftmaxCrossEntropy : public framework::DeviceLoss {
 public:
  SoftmaxCrossEntropy(int classes, int max_batch);
  SoftmaxCrossEntropy(const SoftmaxCrossEntropy&) = delete;
  SoftmaxCrossEntropy& operator=(const SoftmaxCrossEntropy&) = delete;
  // logits [batch x classes], labels [batch] (device ints) -> probs() = softmax(logits) per row,
  // row_loss()[b] = -log probs[b][labels[b]] (one loss per example, not the mean).   step 08.1
  void forward(const float* logits, const int* labels, int batch) override;
  // logits_grad() = (probs() - onehot(labels)) / batch: the gradient of the MEAN loss over the
  // batch, from the probs() of the last forward.                                       step 08.1
  void backward(const int* labels, int batch) override;
  // As Layer's: whether the passes go to the stream set_stream gives (a later lesson's loss does).
  bool runs_on_stream() const override { return false; }
  void set_stream(cudaStream_t stream) override { stream_ = stream; }

  int classes() const { return classes_; }
  const float* probs() const { return probs_.data(); }
  const float* row_loss() const override { return row_loss_.data(); }
  float* logits_grad() override { return dlogits_.data(); }
  static const std::string& name();  // "loss", as a PassObserver sees it
  void set_observer(PassObserver* observer) override { observer_ = observer; }

 protected:
  // 1 <= batch <= max_batch, else throws course::Error; tells the observer first (as Layer's).
  void check_batch(int batch, const char* what) const;
  int classes_, max_batch_;
  PassObserver* observer_ = nullptr;
  cudaStream_t stream_ = nullptr;
  course::DeviceBuffer<float> probs_, row_loss_, dlogits_;  // each sized for max_batch rows
};

}  // namespace mnist_gpu
