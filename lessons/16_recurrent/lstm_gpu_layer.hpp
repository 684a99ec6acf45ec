#pragma once
// Lesson 16 (given): your recurrence (16.2 or 16.3) inside the framework's GPU layers, so that the GPU's
// sequence network is a chain like the CPU's (lstm_host_layer.hpp) and like every GPU network of the
// course: the lstm<H> layer (lstm_gpu.cu's passes around your recurrence) and a one-value head on
// every step. Both launch on the stream the network gives them, so a pass can be one CUDA graph.
// Their rows are time-major, `steps` (set_steps) steps of rows / steps sequences.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "course/device_buffer.hpp"
#include "framework/layer_stack.hpp"
#include "recurrent_gpu.hpp"

namespace recurrent {

class LstmOnGpu : public framework::DeviceLayer {
 public:
  LstmOnGpu(const std::string& name, const framework::LayerPlan& plan, const framework::DeviceLayerContext& context,
            Recurrence recurrence);
  // Sizes the passes' workspace for sequences of `steps` steps (max_batch / steps of them) and, for
  // 16.3, checks that its plan fits this GPU (course::Error otherwise). Allocates: call it before the
  // first pass and before a pass is captured, never inside one (a pass before it throws).
  void set_steps(int steps) override;
  // Every step's h from a zero state (lstm_forward_gpu).
  void forward(const float* x, int rows) override;
  // Backpropagation through every step (lstm_backward_gpu); the input's gradient only where wanted.
  void backward(const float* x, const float* dy, int rows) override;
  // False: nobody reads the input's gradient (the network's input is data), so none is made.
  void set_input_grad(bool needed) { input_grad_ = needed; }
  bool runs_on_stream() const override { return true; }
  std::string kernels() const override { return recurrence_name(recurrence_); }
  size_t own_bytes() const override;

 private:
  LstmShape shape_of(int rows, const char* what) const;  // check_batch, then whole sequences only

  framework::ParamView w_ih_, w_hh_, b_ih_, b_hh_;
  Recurrence recurrence_;
  int steps_ = 0;  // none set yet
  bool input_grad_ = true;
  course::DeviceBuffer<float> c_, gates_, zeros_, dh0_, dc0_, workspace_;
};

// A dense layer of one output (a regression head on every step: y = h . w + b). Lesson 09's dense
// products are built for wide outputs; one output over 97,000 rows is a reduction along each row
// (a warp a row), and its weight's gradient one along the rows (parts, then their sums).
class OneOutputHeadOnGpu : public framework::DeviceLayer {
 public:
  OneOutputHeadOnGpu(const std::string& name, const framework::LayerPlan& plan,
                     const framework::DeviceLayerContext& context);
  void forward(const float* x, int rows) override;
  void backward(const float* x, const float* dy, int rows) override;
  bool runs_on_stream() const override { return true; }
  std::string kernels() const override { return "a warp a row"; }
  size_t own_bytes() const override { return parts_.bytes(); }

 private:
  framework::ParamView weight_, bias_;
  course::DeviceBuffer<float> parts_;  // the weight gradient's partial sums
};

// sums[j] (j < split) or rest[j - split] (j >= split) = the sum over k < count of values[k * stride + j],
// for j < columns: one block a column, every run in the same order. On `stream`.
void column_sums_gpu(const float* values, int count, int stride, int columns, float* sums, int split, float* rest,
                     cudaStream_t stream);

// The GPU's sequence layers: the LSTM with `recurrence` and the one-output head.
std::shared_ptr<const framework::DeviceLayerMakers> sequence_gpu_layers(Recurrence recurrence);
// The kinds they run: an LSTM and a dense layer of one output.
const framework::LayerKinds& sequence_gpu_kinds();

}  // namespace recurrent
