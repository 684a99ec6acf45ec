#pragma once
// Lesson 09 (given, read-only): the dense layer's three products when a row of the output is
// short: out <= kSmallOut output features (model A's fc2 has 10). A 64-wide GEMM tile would
// leave most of its columns idle and a split reduction would add a second launch, for a product
// of about a million multiply-adds that a few thousand threads finish in one short kernel.
// 09.7's functions call these for such shapes, with their own gathers: each kernel adds up its
// sums in a fixed order (the same bits on every run) and hands every complete sum to the gather's
// finish, yours (exercises/dense_fused.cuh), as the GEMM's epilogue does.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "course/arithmetic.hpp"
#include "course/cuda_check.hpp"

namespace fast_training::detail {

constexpr int kSmallOut = 16;
constexpr int kRowThreads = 128;  // a block per row of x in the forward pass
constexpr int kParts = 8;         // parts of the batch in the weight gradient

// A block per row b of x: v = sum_i x[b][i] W[o][i] for each o < out, then f.finish(b, o, v).
template <class Finish>
__global__ void small_forward_kernel(const float* __restrict__ x, const float* __restrict__ W, int in, int out,
                                     Finish f) {
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
  float sum = 0.0f;
  for (int w = 0; w < kRowThreads / 32; ++w) sum += warp_sums[w][o];
  f.finish(b, o, sum);
}

// A thread per (b, i): v = sum_o dy[b][o] W[o][i], then f.finish(b, i, v).
template <class Finish>
__global__ void small_backward_data_kernel(const float* __restrict__ W, const float* __restrict__ dy, int batch,
                                           int in, int out, Finish f) {
  const size_t count = size_t(batch) * in;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < count; e += size_t(gridDim.x) * blockDim.x) {
    const int b = int(e / in), i = int(e % in);
    float sum = 0.0f;
    for (int o = 0; o < out; ++o) sum = fmaf(__ldg(dy + size_t(b) * out + o), __ldg(W + size_t(o) * in + i), sum);
    f.finish(b, i, sum);
  }
}

// Block: 32 columns of x (column `in` is the ones of dbias) x kParts parts of the batch:
// v = sum_b dy[b][o] x[b][i] (x[b][in] = 1), the parts added in order, then f.finish(o, i, v).
template <class Finish>
__global__ void small_backward_weight_kernel(const float* __restrict__ x, const float* __restrict__ dy, int batch,
                                             int in, int out, Finish f) {
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
    f.finish(o, i, sum);
  }
}

// The launches: y [batch x out] (f: the forward's gather), dx [batch x in], dW [out x in] and dbias.
template <class Finish>
void dense_small_forward(const Finish& f, const float* x, const float* W, int batch, int in, int out,
                         cudaStream_t stream) {
  small_forward_kernel<<<unsigned(batch), kRowThreads, 0, stream>>>(x, W, in, out, f);
  CUDA_CHECK_LAUNCH();
}
template <class Finish>
void dense_small_backward_data(const Finish& f, const float* W, const float* dy, int batch, int in, int out,
                               cudaStream_t stream) {
  const size_t count = size_t(batch) * in;
  const unsigned blocks = unsigned(std::min<size_t>(course::ceil_div(count, size_t(256)), 4096));
  small_backward_data_kernel<<<blocks, 256, 0, stream>>>(W, dy, batch, in, out, f);
  CUDA_CHECK_LAUNCH();
}
template <class Finish>
void dense_small_backward_weight(const Finish& f, const float* x, const float* dy, int batch, int in, int out,
                                 cudaStream_t stream) {
  small_backward_weight_kernel<<<unsigned(in / 32 + 1), kParts * 32, 0, stream>>>(x, dy, batch, in, out, f);
  CUDA_CHECK_LAUNCH();
}

}  // namespace fast_training::detail
