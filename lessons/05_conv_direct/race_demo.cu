// The data race of lesson 05, on purpose (see race_demo.hpp). Do not copy this kernel.
#include <cstdint>

#include "conv_launch.cuh"
#include "course/cuda_check.hpp"
#include "race_demo.hpp"

namespace conv_direct {

namespace {

// `dW[k] += v` is three steps: load dW[k], add, store. When two threads do them at the same
// time both load the same old value and the second store erases the first thread's addition.
// The 32 lanes of a warp share oc and differ in ow: they hit the SAME dW[k] in the same
// instruction, so at most one of their 32 additions survives; warps of other blocks collide
// on top of that, in an order that depends on timing.
__global__ void weight_grad_racy_kernel(const float* x, const float* dy, float* dW, float* dbias, int64_t outputs,
                                        Dims d) {
  const int64_t item = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (item >= outputs) return;
  const int64_t plane = item / (int64_t(d.OH) * d.OW);  // (image, output channel) of this dy value
  const int pixel = static_cast<int>(item - plane * d.OH * d.OW);
  const int channel = static_cast<int>(plane % d.O);
  const float* image = x + plane / d.O * d.C * d.H * d.W;
  const float g = dy[item];
  dbias[channel] += g;  // RACE: every thread of this channel does this
  const int top = pixel / d.OW * d.stride - d.pad, left = pixel % d.OW * d.stride - d.pad;
  const int taps = d.KH * d.KW;
  for (int t = 0; t < d.C * taps; ++t) {  // every weight this dy value touches
    const int c = t / taps, row = top + t % taps / d.KW, col = left + t % d.KW;
    if (row < 0 || row >= d.H || col < 0 || col >= d.W) continue;
    dW[int64_t(channel) * d.C * taps + t] += g * image[(int64_t(c) * d.H + row) * d.W + col];  // RACE
  }
}

}  // namespace

void conv2d_backward_weight_racy(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias) {
  check_shape(s, "conv2d_backward_weight_racy");
  CUDA_CHECK(cudaMemsetAsync(dW, 0, s.weight_size() * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(dbias, 0, size_t(s.out_channels) * sizeof(float)));
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  weight_grad_racy_kernel<<<blocks_for(outputs), kThreads>>>(x, dy, dW, dbias, outputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
