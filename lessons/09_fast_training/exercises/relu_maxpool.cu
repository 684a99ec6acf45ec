// Lesson 09, step 09.5: ReLU folded into max-pool, forward and backward. YOUR FILE: the two kernel
// bodies marked TODO; the launchers are written for you.
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

// Launched with any grid: every output o < outputs must be written by some thread.
__global__ void relu_maxpool_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ argmax,
                                    int64_t outputs, int H, int W, int OH, int OW, int window, int stride) {
  // TODO(09.5): y[o] = max(0, the maximum of x over o's window); argmax[o] = the flat index into x
  // of the window's FIRST maximum (row by row, left to right; a later equal value does not win)
  // when that maximum is > 0, else -1. x, y and argmax are NCHW; window o = (plane, oh, ow) starts
  // at row oh * stride, column ow * stride of its plane.
  (void)x, (void)y, (void)argmax, (void)outputs, (void)H, (void)W, (void)OH, (void)OW, (void)window, (void)stride;
}

// Launched with any grid: every input i < inputs must be written by some thread. W, H and stride
// divide by multiply and shift (fast_div.cuh): W.div(n) == n / W.d.
__global__ void relu_maxpool_backward_kernel(const int* __restrict__ argmax, const float* __restrict__ dy,
                                             float* __restrict__ dx, int inputs, FastDiv W, FastDiv H,
                                             FastDiv stride, int OH, int OW) {
  // TODO(09.5): for input i = ((plane * H + h) * W + w): its window is oh = h / stride, ow = w / stride
  // (none when oh >= OH or ow >= OW); o = (plane * OH + oh) * OW + ow. dx[i] = dy[o] if argmax[o] == i,
  // else 0. Write every dx[i].
  (void)argmax, (void)dy, (void)dx, (void)inputs, (void)W, (void)H, (void)stride, (void)OH, (void)OW;
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
