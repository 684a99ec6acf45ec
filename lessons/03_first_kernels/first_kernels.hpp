#pragma once
// Lesson 03: first CUDA kernels. Plain C++ header: the kernels live in exercises/*.cu.
//
// Every pointer below is a DEVICE pointer (from course::DeviceBuffer<float>::data()).
// Every function launches its kernel on the default stream (the ReLU's and sgd_momentum_update on
// the stream they are given) and returns at once (a launch is asynchronous); it checks the launch configuration with CUDA_CHECK_LAUNCH, so a bad
// launch throws course::CudaError. n == 0 (or an empty shape) launches nothing.
// The GPU trainer calls these: keep the signatures.
#include <algorithm>
#include <cstddef>

#include <cuda_runtime_api.h>  // cudaStream_t

namespace first_kernels {

// ---- the launch shape every 1-D launcher of this lesson uses ----------------------------
// 256 threads per block, and AT MOST kMaxBlocks blocks: enough to fill an H100 (132 SMs x
// 8 resident blocks of 256 threads = 1056 blocks) once. Larger arrays are covered by the
// grid-stride loop inside the kernel, so one grid of kGridCapacity threads handles any n.
constexpr int kThreadsPerBlock = 256;
constexpr int kMaxBlocks = 1024;
constexpr size_t kGridCapacity = size_t(kThreadsPerBlock) * kMaxBlocks;  // 262144 threads

// Blocks for n elements: ceil(n / kThreadsPerBlock), capped at kMaxBlocks; 0 when n == 0.
inline int blocks_for(size_t n) {
  const size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<int>(std::min<size_t>(blocks, kMaxBlocks));
}

// bias_add_nchw's 2-D grid: x covers one H*W plane (kThreadsPerBlock threads per block,
// at most kMaxBlocks blocks), y covers the batch*channels planes, at most kMaxPlanesInGrid
// (the hardware limit of gridDim.y); both directions use grid-stride loops.
constexpr int kMaxPlanesInGrid = 65535;

// ---- 03.1 vector add --------------------------------------------------------------------
// c[i] = a[i] + b[i] for i < n (1-D grid-stride loop).
void vector_add(const float* a, const float* b, float* c, size_t n);

// ---- 03.1 ReLU --------------------------------------------------------------------------
// y[i] = max(x[i], 0).
void relu_forward(const float* x, float* y, size_t n, cudaStream_t stream = nullptr);
// dx[i] = dy[i] where x[i] > 0, else 0 (the gradient at exactly 0 is 0, as in lesson 01).
void relu_backward(const float* x, const float* dy, float* dx, size_t n, cudaStream_t stream = nullptr);

// ---- 03.2 bias add over NCHW --------------------------------------------------------------
// In place: y[n][c][p] += bias[c] for a [batch, channels, plane] tensor, plane = H*W.
void bias_add_nchw(float* y, const float* bias, int batch, int channels, int plane);

// ---- 03.2 SGD with momentum (PyTorch's torch.optim.SGD, dampening 0, no Nesterov) --------
// In place, for every i < n:
//   velocity[i] = momentum * velocity[i] + (g[i] + weight_decay * w[i])
//   w[i]       -= (*lr) * velocity[i]
// lr points to ONE float in device memory, read when the kernel runs: a launch recorded once (a CUDA
// graph) and replayed later uses the rate of that moment, so a trainer that changes its rate writes
// that float instead of recording its launches again. Launches on `stream` (the default stream
// unless given), so that a caller can capture it into a CUDA graph.
void sgd_momentum_update(float* w, const float* g, float* velocity, size_t n, const float* lr, float momentum,
                         float weight_decay, cudaStream_t stream = nullptr);

}  // namespace first_kernels
