// Lesson 05, steps 05.3 and 05.4: the weight and bias gradients.
// Both sum products over all N*OH*OW output positions. They share entry_sum, the sum for one
// gradient entry over a run of output rows; they differ in how the runs are combined:
//   05.3 one run per image, combined with atomicAdd (order of additions varies run to run)
//   05.4 runs of rows_per_chunk rows, written to a workspace, combined by a second kernel
//        in a fixed order (the same bits every run)
#include <cstdint>

#include "conv_direct.hpp"
#include "conv_launch.cuh"
#include "course/cuda_check.hpp"

namespace conv_direct {

// (Outside the anonymous namespace so that an unfinished file compiles without an "unused" warning.)
// Gradient entry j over the output rows [row_begin, row_end); row r is (n, oh) = (r / OH, r % OH).
//   j < O*C*KH*KW: j = ((oc*C + c)*KH + kh)*KW + kw, the entry dW[oc][c][kh][kw]:
//       sum of dy[n][oc][oh][ow] * x[n][c][oh*stride - pad + kh][ow*stride - pad + kw]
//       over the positions whose input lies inside the image (padding adds 0);
//   j = O*C*KH*KW + oc, the entry dbias[oc]: sum of dy[n][oc][oh][ow].
// Additions in the order (n, oh, ow), as in lesson 01.
__device__ float entry_sum(const float* __restrict__ x, const float* __restrict__ dy, const Dims& d, int64_t j,
                           int row_begin, int row_end) {
  const int64_t weights = int64_t(d.O) * d.C * d.KH * d.KW;
  float sum = 0.0f;
  if (j >= weights) {  // a bias entry
    const int oc = static_cast<int>(j - weights);
    for (int r = row_begin; r < row_end; ++r) {
      const int n = r / d.OH, oh = r % d.OH;
      const float* dy_row = dy + ((int64_t(n) * d.O + oc) * d.OH + oh) * d.OW;
      for (int ow = 0; ow < d.OW; ++ow) sum += dy_row[ow];
    }
    return sum;
  }
  const int kw = static_cast<int>(j % d.KW);
  const int kh = static_cast<int>(j / d.KW % d.KH);
  const int c = static_cast<int>(j / (int64_t(d.KW) * d.KH) % d.C);
  const int oc = static_cast<int>(j / (int64_t(d.KW) * d.KH * d.C));
  for (int r = row_begin; r < row_end; ++r) {
    const int n = r / d.OH, oh = r % d.OH;
    const int ih = oh * d.stride - d.pad + kh;
    if (ih < 0 || ih >= d.H) continue;  // this row of outputs sees padding through tap kh
    const float* dy_row = dy + ((int64_t(n) * d.O + oc) * d.OH + oh) * d.OW;
    const float* x_row = x + ((int64_t(n) * d.C + c) * d.H + ih) * d.W;
    for (int ow = 0; ow < d.OW; ++ow) {
      const int iw = ow * d.stride - d.pad + kw;
      if (iw >= 0 && iw < d.W) sum += dy_row[ow] * x_row[iw];
    }
  }
  return sum;
}

namespace {

// 05.3: thread t = n*entries + j sums image n's rows for entry j and adds the result into
// dW / dbias atomically. Each entry receives N atomicAdds, in whatever order the threads get there.
__global__ void weight_grad_atomic_kernel(const float* __restrict__ x, const float* __restrict__ dy, float* dW,
                                          float* dbias, Dims d, int64_t entries) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= int64_t(d.N) * entries) return;
  const int n = static_cast<int>(t / entries);
  const int64_t j = t % entries;
  const float v = entry_sum(x, dy, d, j, n * d.OH, (n + 1) * d.OH);
  const int64_t weights = entries - d.O;
  atomicAdd(j < weights ? dW + j : dbias + (j - weights), v);
}

// 05.4, first pass: thread t = k*entries + j writes entry j's sum over chunk k's rows to
// partial[t]. Every partial is written by exactly one thread: no two threads share an address.
__global__ void weight_grad_partial_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                                           float* __restrict__ partial, Dims d, int64_t entries, int chunks,
                                           int rows_per_chunk) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= int64_t(chunks) * entries) return;
  const int k = static_cast<int>(t / entries);
  const int64_t j = t % entries;
  const int row_begin = k * rows_per_chunk;
  const int row_end = min(row_begin + rows_per_chunk, d.N * d.OH);  // the last chunk may be shorter
  partial[t] = entry_sum(x, dy, d, j, row_begin, row_end);
}

// 05.4, second pass: thread j adds entry j's partials in chunk order 0, 1, ..., chunks-1 and
// writes the total. A fixed order, so the same bits every run. Consecutive threads read
// consecutive partials (coalesced).
__global__ void weight_grad_reduce_kernel(const float* __restrict__ partial, float* __restrict__ dW,
                                          float* __restrict__ dbias, int64_t entries, int64_t weights, int chunks) {
  const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (j >= entries) return;
  float sum = 0.0f;
#pragma unroll 4  // several loads in flight; the additions stay in order
  for (int k = 0; k < chunks; ++k) sum += partial[int64_t(k) * entries + j];
  if (j < weights)
    dW[j] = sum;
  else
    dbias[j - weights] = sum;
}

}  // namespace

void conv2d_backward_weight_atomic(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias) {
  check_shape(s, "conv2d_backward_weight_atomic");
  // The atomics add onto what is there: start from zero (the function overwrites its outputs).
  CUDA_CHECK(cudaMemsetAsync(dW, 0, s.weight_size() * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(dbias, 0, size_t(s.out_channels) * sizeof(float)));
  const int64_t entries = static_cast<int64_t>(gradient_entries(s));
  weight_grad_atomic_kernel<<<blocks_for(int64_t(s.batch) * entries), kThreads>>>(x, dy, dW, dbias, dims_of(s),
                                                                                  entries);
  CUDA_CHECK_LAUNCH();
}

void conv2d_backward_weight(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                            float* workspace) {
  check_shape(s, "conv2d_backward_weight");
  if (workspace == nullptr)
    throw course::Error("conv2d_backward_weight: workspace is null (it needs "
                        "conv2d_backward_weight_workspace(s) floats)");
  const WeightGradSplit split = weight_grad_split(s);
  const int64_t entries = static_cast<int64_t>(gradient_entries(s));
  weight_grad_partial_kernel<<<blocks_for(int64_t(split.chunks) * entries), kThreads>>>(
      x, dy, workspace, dims_of(s), entries, split.chunks, split.rows_per_chunk);
  CUDA_CHECK_LAUNCH();
  weight_grad_reduce_kernel<<<blocks_for(entries), kThreads>>>(workspace, dW, dbias, entries,
                                                               static_cast<int64_t>(s.weight_size()), split.chunks);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
