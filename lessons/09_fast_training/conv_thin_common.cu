// Lesson 09 (given): the thin first layer's shape rule, plan and slice sum (step 09.13; the kernels
// are conv_thin.cuh, the parts you write exercises/conv_thin.cu).
#include <algorithm>
#include <climits>
#include <string>

#include "conv_thin.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {

namespace {

int taps_of(const ConvShape& c) { return c.in_channels * c.kernel_h * c.kernel_w; }
size_t padded_floats(const ConvShape& c) { return size_t(c.in_channels) * (c.height + 2 * c.pad) * (c.width + 2 * c.pad); }

// The sums of the slices, in slice order: one thread per (o, t).
__global__ void thin_dw_sum_kernel(const float* workspace, float* dW, float* dbias, int O, int taps, int slices) {
  const int entries = taps + 1;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < O * entries; i += gridDim.x * blockDim.x) {
    const int o = i / entries, t = i - o * entries;
    float sum = 0.0f;
    for (int s = 0; s < slices; ++s) sum += workspace[(size_t(s) * O + o) * entries + t];
    if (t < taps)
      dW[size_t(o) * taps + t] = sum;
    else
      dbias[o] = sum;
  }
}

}  // namespace

std::string thin_conv_problem(const ConvShape& c, const host_layers::PoolShape& p) {
  const std::string shape = "conv " + std::to_string(c.in_channels) + " -> " + std::to_string(c.out_channels) +
                            " channels, " + std::to_string(c.kernel_h) + "x" + std::to_string(c.kernel_w);
  if (c.batch < 1 || c.in_channels < 1 || c.out_channels < 1 || c.height < 1 || c.width < 1)
    return shape + ": empty shapes";
  if (c.kernel_h != c.kernel_w || (c.kernel_h != 3 && c.kernel_h != 5))
    return shape + ": the thin kernels take square 3x3 and 5x5 kernels";
  if (c.in_channels > 3 || taps_of(c) > kThinMaxTaps)
    return shape + ": " + std::to_string(taps_of(c)) + " taps a channel (C * k * k); the thin kernels take at most " +
           std::to_string(kThinMaxTaps) + " and 1-3 input channels";
  if (c.stride != 1) return shape + ": stride " + std::to_string(c.stride) + " (the thin kernels take stride 1)";
  if (c.pad < 0 || c.pad > c.kernel_h - 1) return shape + ": pad " + std::to_string(c.pad) + " outside 0..k-1";
  if (p.window != p.stride) return "the pool's windows overlap (stride " + std::to_string(p.stride) + " != window " +
                                   std::to_string(p.window) + ")";
  if (p.window < 1 || p.batch != c.batch || p.channels != c.out_channels || p.height != c.out_h() ||
      p.width != c.out_w())
    return "the pool does not read the conv's output (" + std::to_string(p.channels) + " x " +
           std::to_string(p.height) + " x " + std::to_string(p.width) + " against " + std::to_string(c.out_channels) +
           " x " + std::to_string(c.out_h()) + " x " + std::to_string(c.out_w()) + ")";
  if (p.out_h() < 1 || p.out_w() < 1) return "the pool has no output";
  if (c.output_size() > size_t(INT_MAX)) return shape + ": the conv's output exceeds 2^31 - 1 entries";
  if (padded_floats(c) + size_t(detail::kThinBlockO) * (taps_of(c) + 1) > size_t(detail::kThinSmemFloats))
    return shape + ": one padded image of " + std::to_string(c.height) + " x " + std::to_string(c.width) +
           " does not fit the block's 48 KiB of shared memory";
  return "";
}

namespace detail {

void require_thin(const ConvShape& c, const host_layers::PoolShape& p, const char* who) {
  const std::string problem = thin_conv_problem(c, p);
  if (!problem.empty()) throw course::Error(std::string(who) + ": " + problem);
}

ThinArgs thin_args(const ConvShape& c, const host_layers::PoolShape& p) {
  ThinArgs a{};
  a.N = c.batch, a.in_h = c.height, a.in_w = c.width, a.O = c.out_channels, a.pad = c.pad;
  a.OH = c.out_h(), a.OW = c.out_w(), a.window = p.window, a.PH = p.out_h(), a.PW = p.out_w();
  a.HP = c.height + 2 * c.pad, a.WP = c.width + 2 * c.pad;
  return a;
}

size_t thin_forward_smem_bytes(const ConvShape& c) {
  return (padded_floats(c) + size_t(kThinBlockO) * (taps_of(c) + 1)) * sizeof(float);
}

size_t thin_backward_smem_bytes(const ConvShape& c) { return padded_floats(c) * sizeof(float); }

ThinBackwardPlan thin_backward_plan(const ConvShape& c) {
  // About 256 blocks: enough to fill the GPU, few enough slices for the sum.
  const int o_blocks = (c.out_channels + kThinBlockO - 1) / kThinBlockO;
  ThinBackwardPlan plan;
  const int wanted = std::max(1, std::min(c.batch, 256 / o_blocks));
  plan.per_slice = (c.batch + wanted - 1) / wanted;
  plan.slices = (c.batch + plan.per_slice - 1) / plan.per_slice;
  return plan;
}

void thin_dw_sum(const float* workspace, float* dW, float* dbias, int O, int taps, int slices, cudaStream_t stream) {
  const int entries = O * (taps + 1);
  thin_dw_sum_kernel<<<(entries + 255) / 256, 256, 0, stream>>>(workspace, dW, dbias, O, taps, slices);
  CUDA_CHECK_LAUNCH();
}

}  // namespace detail

size_t thin_conv_dw_workspace_floats(const ConvShape& c) {
  const detail::ThinBackwardPlan plan = detail::thin_backward_plan(c);
  return size_t(plan.slices) * c.out_channels * (taps_of(c) + 1);
}

}  // namespace fast_training
