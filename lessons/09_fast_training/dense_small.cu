// Lesson 09 (given): the dense products with short output rows (dense_small.cuh).
#include <algorithm>

#include "course/cuda_check.hpp"
#include "dense_small.cuh"

namespace fast_training::detail {

namespace {

constexpr int kRowThreads = 128;  // a block per row of x in the forward pass

__global__ void small_forward_kernel(const float* __restrict__ x, const float* __restrict__ W,
                                     const float* __restrict__ bias, float* __restrict__ y, int in, int out,
                                     bool relu) {
  __shared__ float warp_sums[kRowThreads / 32][kSmallOut];
  const int b = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float acc[kSmallOut] = {};
  const float* row = x + size_t(b) * in;
  for (int i = threadIdx.x; i < in; i += kRowThreads) {
    const float v = __ldg(row + i);
#pragma unroll
    for (int o = 0; o < kSmallOut; ++o)
      if (o < out) acc[o] = fmaf(v, __ldg(W + size_t(o) * in + i), acc[o]);
  }
  // Each feature's sums: the same xor tree in every warp, then the warps in order 0, 1, ...
#pragma unroll
  for (int o = 0; o < kSmallOut; ++o) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) acc[o] += __shfl_xor_sync(0xffffffffu, acc[o], offset);
    if (lane == 0) warp_sums[warp][o] = acc[o];
  }
  __syncthreads();
  const int o = threadIdx.x;
  if (o >= out) return;
  float v = bias ? __ldg(bias + o) : 0.0f;
  float sum = 0.0f;
  for (int w = 0; w < kRowThreads / 32; ++w) sum += warp_sums[w][o];
  v += sum;
  y[size_t(b) * out + o] = relu ? fmaxf(v, 0.0f) : v;
}

__global__ void small_backward_data_kernel(const float* __restrict__ W, const float* __restrict__ dy,
                                           const float* __restrict__ mask, float* __restrict__ dx, int batch, int in,
                                           int out) {
  const size_t count = size_t(batch) * in;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < count; e += size_t(gridDim.x) * blockDim.x) {
    const int b = int(e / in), i = int(e % in);
    float sum = 0.0f;
    for (int o = 0; o < out; ++o) sum = fmaf(__ldg(dy + size_t(b) * out + o), __ldg(W + size_t(o) * in + i), sum);
    dx[e] = (mask == nullptr || mask[e] > 0.0f) ? sum : 0.0f;
  }
}

// Block: 32 columns of x (column `in` is the ones of dbias) x kParts parts of the batch.
constexpr int kParts = 8;
__global__ void small_backward_weight_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                                             float* __restrict__ dW, float* __restrict__ dbias, int batch, int in,
                                             int out) {
  __shared__ float parts[kParts][kSmallOut][32];
  const int column = threadIdx.x % 32, part = threadIdx.x / 32;
  const int i = blockIdx.x * 32 + column;
  float acc[kSmallOut] = {};
  if (i <= in)
    for (int b = part; b < batch; b += kParts) {
      const float v = i < in ? __ldg(x + size_t(b) * in + i) : 1.0f;
#pragma unroll
      for (int o = 0; o < kSmallOut; ++o)
        if (o < out) acc[o] = fmaf(__ldg(dy + size_t(b) * out + o), v, acc[o]);
    }
#pragma unroll
  for (int o = 0; o < kSmallOut; ++o) parts[part][o][column] = acc[o];
  __syncthreads();
  // Warp w adds the parts of features w, w + kParts, ..., in order 0, 1, ...
  if (i > in) return;
  for (int o = threadIdx.x / 32; o < out; o += kParts) {
    float sum = 0.0f;
    for (int p = 0; p < kParts; ++p) sum += parts[p][o][column];
    if (i < in) dW[size_t(o) * in + i] = sum;
    else dbias[o] = sum;
  }
}

}  // namespace

void dense_small_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                         bool relu, cudaStream_t stream) {
  small_forward_kernel<<<unsigned(batch), kRowThreads, 0, stream>>>(x, W, bias, y, in, out, relu);
  CUDA_CHECK_LAUNCH();
}

void dense_small_backward_data(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                               int out, cudaStream_t stream) {
  const size_t count = size_t(batch) * in;
  const unsigned blocks = unsigned(std::min<size_t>((count + 255) / 256, 4096));
  small_backward_data_kernel<<<blocks, 256, 0, stream>>>(W, dy, mask, dx, batch, in, out);
  CUDA_CHECK_LAUNCH();
}

void dense_small_backward_weight(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                 cudaStream_t stream) {
  small_backward_weight_kernel<<<unsigned(in / 32 + 1), kParts * 32, 0, stream>>>(x, dy, dW, dbias, batch, in, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fast_training::detail
