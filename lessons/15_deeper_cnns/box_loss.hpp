#pragma once
// Lesson 15 (given): the box task's loss as the end of lesson 08's network: your 15.4 on the GPU,
// between the network's four outputs and the box each canvas's label holds (box_task.hpp).
//
//   forward:  targets = box_targets(labels)   regression_loss_gpu(outputs, targets) -> rows, dL/doutputs
//   backward: nothing left to do: 15.4 wrote the gradient with the loss
//
// row_loss()[b] is example b's mean cost over its four outputs (15.4's row share times the batch):
// the trainer adds rows up and divides by the examples seen, as it does for cross-entropy.
#include <memory>
#include <string>

#include "course/device_buffer.hpp"
#include "deeper_cnns.hpp"
#include "framework/layer_stack.hpp"

namespace deeper_cnns {

class BoxLoss : public framework::DeviceLoss {
 public:
  // outputs: the network's last layer (must be kBoxOutputs); beta: smooth L1's (> 0, finite).
  // Throws course::Error otherwise.
  BoxLoss(RegressionLoss kind, float beta, int outputs, int max_batch);
  void forward(const float* outputs, const int* labels, int batch) override;
  void backward(const int* labels, int batch) override;
  const float* row_loss() const override { return rows_.data(); }
  float* logits_grad() override { return grad_.data(); }
  bool runs_on_stream() const override { return true; }
  void set_stream(cudaStream_t stream) override { stream_ = stream; }
  void set_observer(framework::PassObserver* observer) override { observer_ = observer; }

 private:
  void check_batch(int batch, const char* what) const;
  RegressionLoss kind_;
  float beta_;
  int max_batch_;
  cudaStream_t stream_ = nullptr;
  framework::PassObserver* observer_ = nullptr;
  course::DeviceBuffer<float> targets_, rows_, grad_;
};

// "smooth_l1" or "squared" (as the --loss flag names them); anything else: course::Error.
RegressionLoss regression_loss_by_name(const std::string& name);
const char* regression_loss_name(RegressionLoss kind);

}  // namespace deeper_cnns
