// Lesson 16 (given): the sequence layers on the GPU (lstm_gpu_layer.hpp).
#include "lstm_gpu_layer.hpp"

#include <algorithm>
#include <string>

#include "block_reduce.cuh"  // lesson 09's warp_sum and block_sum
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace recurrent {

using framework::LayerKind;
using framework::LayerPlan;

namespace {

constexpr int kHeadParts = 1024;  // blocks of the head weight gradient's first pass (~95 rows each)
constexpr int kSumThreads = 256;

// pred[r] = h[r] . w + b: a warp a row, its lanes along the row.
__global__ void head_forward(const float* h, const float* w, const float* b, float* pred, int rows, int H) {
  const int row = int((blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32), lane = threadIdx.x % 32;
  if (row >= rows) return;  // whole warps leave together
  float sum = 0;
  for (int j = lane; j < H; j += 32) sum += h[size_t(row) * H + j] * w[j];
  sum = fast_training::warp_sum(sum);
  if (lane == 0) pred[row] = sum + b[0];
}

// dh = dpred w, every element; and block k's part (rows k * per ...) of the weight's gradient,
// sum over r of dpred[r] h[r], and of the bias's, sum of dpred: parts[k][0 .. H].
__global__ void head_backward_parts(const float* h, const float* w, const float* dpred, float* dh, float* parts,
                                    int rows, int H) {
  const int per = (rows + gridDim.x - 1) / gridDim.x, first = blockIdx.x * per, end = min(rows, first + per);
  for (int j = threadIdx.x; j <= H; j += blockDim.x) {
    const float wj = j < H ? w[j] : 0.0f;
    float sum = 0;
    for (int r = first; r < end; ++r) {
      const float d = dpred[r];
      if (j < H) {
        sum += d * h[size_t(r) * H + j];
        dh[size_t(r) * H + j] = d * wj;
      } else {
        sum += d;
      }
    }
    parts[size_t(blockIdx.x) * (H + 1) + j] = sum;
  }
}

// Each thread adds every kSumThreads-th value of its block's column, then lesson 09's block_sum.
__global__ void column_sums(const float* values, int count, int stride, float* sums, int split, float* rest) {
  float sum = 0;
  for (int k = threadIdx.x; k < count; k += kSumThreads) sum += values[size_t(k) * stride + blockIdx.x];
  sum = fast_training::block_sum(sum);
  if (threadIdx.x == 0) (int(blockIdx.x) < split ? sums[blockIdx.x] : rest[blockIdx.x - split]) = sum;
}

}  // namespace

void column_sums_gpu(const float* values, int count, int stride, int columns, float* sums, int split, float* rest,
                     cudaStream_t stream) {
  if (!values || !sums || count < 1 || columns < 1 || (split < columns && !rest))
    throw course::Error("column_sums_gpu: bad arguments");
  column_sums<<<columns, kSumThreads, 0, stream>>>(values, count, stride, sums, split, rest);
  CUDA_CHECK_LAUNCH();
}

// ---- the LSTM --------------------------------------------------------------------------------------

LstmOnGpu::LstmOnGpu(const std::string& name, const LayerPlan& plan, const framework::DeviceLayerContext& context,
                     Recurrence recurrence)
    : DeviceLayer(name, plan, context.max_batch),
      w_ih_(context.params(plan, 0)),
      w_hh_(context.params(plan, 1)),
      b_ih_(context.params(plan, 2)),
      b_hh_(context.params(plan, 3)),
      recurrence_(recurrence) {}

void LstmOnGpu::set_steps(int steps) {
  if (steps < 1 || steps > max_batch_)
    throw course::Error(name_ + ": sequences of " + std::to_string(steps) + " steps in passes of at most " +
                        std::to_string(max_batch_) + " rows");
  steps_ = steps;
  const LstmShape s{max_batch_ / steps, steps, int(in_size()), int(out_size())};
  if (recurrence_ == Recurrence::persistent) plan_persistent(s);  // refused here, before a pass, when it cannot run
  const size_t rows = size_t(s.batch) * s.steps, state = size_t(s.batch) * s.hidden;
  const auto grow = [](course::DeviceBuffer<float>& buffer, size_t n, bool zero) {
    if (buffer.size() >= n) return;
    buffer = course::DeviceBuffer<float>();  // the old one goes first
    buffer = course::DeviceBuffer<float>(n);
    if (zero) buffer.zero();
  };
  grow(c_, rows * s.hidden, false), grow(gates_, 4 * rows * s.hidden, false);
  grow(zeros_, state, true), grow(dh0_, state, false), grow(dc0_, state, false);
  grow(workspace_, lstm_gpu_workspace_floats(s), false);
}

LstmShape LstmOnGpu::shape_of(int rows, const char* what) const {
  check_batch(rows, what);
  if (steps_ == 0) throw course::Error(name_ + " " + what + ": set_steps first (it sizes the passes' workspace)");
  if (rows % steps_ != 0)
    throw course::Error(name_ + " " + what + ": " + std::to_string(rows) + " rows are not whole sequences of " +
                        std::to_string(steps_) + " steps");
  return {rows / steps_, steps_, int(in_size()), int(out_size())};
}

void LstmOnGpu::forward(const float* x, int rows) {
  const LstmShape s = shape_of(rows, "forward");
  lstm_forward_gpu(recurrence_, s, {w_ih_.value, w_hh_.value, b_ih_.value, b_hh_.value}, x, zeros_.data(),
                   zeros_.data(), out_.data(), c_.data(), gates_.data(), workspace_.data(), stream_);
}

void LstmOnGpu::backward(const float* x, const float* dy, int rows) {
  const LstmShape s = shape_of(rows, "backward");
  lstm_backward_gpu(recurrence_, s, {w_ih_.value, w_hh_.value, b_ih_.value, b_hh_.value}, x, zeros_.data(),
                    zeros_.data(), out_.data(), c_.data(), gates_.data(), dy, nullptr, nullptr,
                    input_grad_ ? din_.data() : nullptr, dh0_.data(), dc0_.data(),
                    {w_ih_.grad, w_hh_.grad, b_ih_.grad, b_hh_.grad}, workspace_.data(), stream_);
}

size_t LstmOnGpu::own_bytes() const {
  return c_.bytes() + gates_.bytes() + zeros_.bytes() + dh0_.bytes() + dc0_.bytes() + workspace_.bytes();
}

// ---- the one-output head ---------------------------------------------------------------------------

OneOutputHeadOnGpu::OneOutputHeadOnGpu(const std::string& name, const LayerPlan& plan,
                                       const framework::DeviceLayerContext& context)
    : DeviceLayer(name, plan, context.max_batch),
      weight_(context.params(plan, 0)),
      bias_(context.params(plan, 1)),
      parts_(size_t(kHeadParts) * (plan.in_size() + 1)) {
  if (plan.out_size() != 1)
    throw course::Error(name_ + ": a one-output head, not " + std::to_string(plan.out_size()) + " outputs");
}

void OneOutputHeadOnGpu::forward(const float* x, int rows) {
  check_batch(rows, "forward");
  head_forward<<<(rows + 7) / 8, 256, 0, stream_>>>(x, weight_.value, bias_.value, out_.data(), rows, int(in_size()));
  CUDA_CHECK_LAUNCH();
}

void OneOutputHeadOnGpu::backward(const float* x, const float* dy, int rows) {
  check_batch(rows, "backward");
  const int H = int(in_size());
  head_backward_parts<<<kHeadParts, 128, 0, stream_>>>(x, weight_.value, dy, din_.data(), parts_.data(), rows, H);
  CUDA_CHECK_LAUNCH();
  column_sums_gpu(parts_.data(), kHeadParts, H + 1, H + 1, weight_.grad, H, bias_.grad, stream_);
}

// ---- the makers ------------------------------------------------------------------------------------

std::shared_ptr<const framework::DeviceLayerMakers> sequence_gpu_layers(Recurrence recurrence) {
  auto makers = std::make_shared<framework::DeviceLayerMakers>();
  makers
      ->add(LayerKind::lstm,
            [recurrence](const LayerPlan& p, const framework::DeviceLayerContext& c, const framework::LayerPlace& place,
                         const auto&) {
              auto layer = std::make_unique<LstmOnGpu>(place.name, p, c, recurrence);
              layer->set_input_grad(!place.reads_network_input);
              return layer;
            })
      .add(LayerKind::dense, [](const LayerPlan& p, const framework::DeviceLayerContext& c,
                                const framework::LayerPlace& place, const auto&) {
        if (p.out_size() != 1)
          throw course::Error(place.name + ": the GPU's sequence network has a head of one output, not dense" +
                              std::to_string(p.out_size()));
        return std::make_unique<OneOutputHeadOnGpu>(place.name, p, c);
      });
  return makers;
}

const framework::LayerKinds& sequence_gpu_kinds() {
  static const framework::LayerKinds kinds{{LayerKind::lstm, LayerKind::dense}, "lstm and a one-output dense head"};
  return kinds;
}

}  // namespace recurrent
