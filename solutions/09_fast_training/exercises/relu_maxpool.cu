// Lesson 09, step 09.5: ReLU folded into max-pool, one pass instead of two, and its backward.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "fast_div.cuh"
#include "fast_training.hpp"
#include "pooling.hpp"

namespace fast_training {

namespace {

// One thread per output (a grid-stride loop). The window's first maximum as lesson 06 finds it;
// then the ReLU: a maximum <= 0 becomes 0 and sends no gradient anywhere.
__global__ void relu_maxpool_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ argmax,
                                    int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < outputs;
       o += int64_t(gridDim.x) * blockDim.x) {
    const int ow = int(o % OW), oh = int(o / OW % OH);
    const int64_t plane = o / (int64_t(OH) * OW);
    const int64_t corner = (plane * H + int64_t(oh) * stride) * W + int64_t(ow) * stride;
    int64_t best = corner;
    float best_value = x[corner];
    for (int i = 0; i < window; ++i)
      for (int j = 0; j < window; ++j) {
        const int64_t at = corner + int64_t(i) * W + j;
        const float v = x[at];
        if (v > best_value) best_value = v, best = at;  // strictly greater: the first maximum wins ties
      }
    const bool positive = best_value > 0.0f;
    y[o] = positive ? best_value : 0.0f;
    argmax[o] = positive ? int(best) : -1;
  }
}

// One thread per input (a grid-stride loop), 32-bit indices, divisions by multiply and shift: the
// input's window o (if any), then one compare with o's argmax.
__global__ void relu_maxpool_backward_kernel(const int* __restrict__ argmax, const float* __restrict__ dy,
                                             float* __restrict__ dx, int inputs, FastDiv W, FastDiv H,
                                             FastDiv stride, int OH, int OW) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < inputs; i += gridDim.x * blockDim.x) {
    const int row = W.div(i);             // plane * H + h
    const int w = i - row * int(W.d);
    const int plane = H.div(row);
    const int h = row - plane * int(H.d);
    const int oh = stride.div(h), ow = stride.div(w);
    float g = 0.0f;
    if (oh < OH && ow < OW) {
      const int o = (plane * OH + oh) * OW + ow;
      if (__ldg(argmax + o) == i) g = __ldg(dy + o);
    }
    dx[i] = g;
  }
}

}  // namespace

// Given: the shape check (lesson 06's) and the launch.
void relu_maxpool_forward(const host_layers::PoolShape& s, const float* x, float* y, int* argmax,
                          cudaStream_t stream) {
  pooling::check_shape(s, "relu_maxpool_forward");
  const int64_t outputs = int64_t(s.output_size());
  if (outputs == 0) return;
  const unsigned blocks = unsigned(std::min<int64_t>((outputs + 255) / 256, 4096));
  relu_maxpool_kernel<<<blocks, 256, 0, stream>>>(x, y, argmax, outputs, s.height, s.width, s.out_h(), s.out_w(),
                                                  s.window, s.stride);
  CUDA_CHECK_LAUNCH();
}

// Given: the checks and the launch.
void relu_maxpool_backward(const host_layers::PoolShape& s, const int* argmax, const float* dy, float* dx,
                           cudaStream_t stream) {
  pooling::check_shape(s, "relu_maxpool_backward");
  if (s.stride != s.window)
    throw course::Error("relu_maxpool_backward: windows must not overlap (stride " + std::to_string(s.stride) +
                        " != window " + std::to_string(s.window) + "); use lesson 06's maxpool_backward_argmax");
  if (s.input_size() > size_t(INT32_MAX))
    throw course::Error("relu_maxpool_backward: " + std::to_string(s.input_size()) + " inputs exceed 2^31 - 1");
  const int inputs = int(s.input_size());
  if (inputs == 0) return;
  const unsigned blocks = unsigned(std::min((inputs + 255) / 256, 8192));
  relu_maxpool_backward_kernel<<<blocks, 256, 0, stream>>>(argmax, dy, dx, inputs, FastDiv(s.width), FastDiv(s.height),
                                                           FastDiv(s.stride), s.out_h(), s.out_w());
  CUDA_CHECK_LAUNCH();
}

}  // namespace fast_training
