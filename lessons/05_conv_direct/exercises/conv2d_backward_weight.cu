// Lesson 05, steps 05.3 and 05.4: the weight and bias gradients. YOUR FILE.
// The launchers at the bottom are written; fill in entry_sum and the three kernels.
//
// A "gradient entry" j is one number to compute: j < O*C*KH*KW is dW[j] (the flat index of
// dW[oc][c][kh][kw]); j = O*C*KH*KW + oc is dbias[oc]. There are `entries` = O*C*KH*KW + O of them.
// Each is a sum over all N*OH output rows r = n*OH + oh (and every ow in the row); the kernels
// split those rows into runs, sum each run with entry_sum, and combine the runs:
//   05.3 one run per image, combined with atomicAdd;
//   05.4 runs of rows_per_chunk rows, each written to a workspace, combined by a second kernel.
#include <cstdint>

#include "conv_direct.hpp"
#include "conv_launch.cuh"
#include "course/cuda_check.hpp"

namespace conv_direct {

// (Outside the anonymous namespace so that an unfinished file compiles without an "unused" warning.)
// Gradient entry j summed over the output rows [row_begin, row_end).
__device__ float entry_sum(const float* __restrict__ x, const float* __restrict__ dy, const Dims& d, int64_t j,
                           int row_begin, int row_end) {
  // TODO(05.3): for each row r in [row_begin, row_end): n = r / OH, oh = r % OH; for each ow in [0, OW):
  //   a bias entry (j >= O*C*KH*KW, oc = j - O*C*KH*KW):  sum += dy[n][oc][oh][ow]
  //   a weight entry: split j into (oc, c, kh, kw) like a flat NCHW index (kw fastest), then
  //     ih = oh*stride - pad + kh, iw = ow*stride - pad + kw;
  //     sum += dy[n][oc][oh][ow] * x[n][c][ih][iw]   only where ih is in [0, H) and iw in [0, W).
  // Add in the order r, then ow, starting from 0.0f. Use int64_t for flat indices.
  return 0.0f;
}

namespace {

// 05.3: thread t = n*entries + j (one per image n and entry j).
__global__ void weight_grad_atomic_kernel(const float* __restrict__ x, const float* __restrict__ dy, float* dW,
                                          float* dbias, Dims d, int64_t entries) {
  // TODO(05.3): return when t >= N*entries. Split t into (n, j); v = entry_sum over image n's rows
  // [n*OH, (n+1)*OH); then atomicAdd(&dW[j], v) for a weight entry, atomicAdd(&dbias[oc], v) for a
  // bias entry. (The launcher has set dW and dbias to 0; N threads add into every entry.)
}

// 05.4, first pass: thread t = k*entries + j (one per chunk k and entry j).
__global__ void weight_grad_partial_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                                           float* __restrict__ partial, Dims d, int64_t entries, int chunks,
                                           int rows_per_chunk) {
  // TODO(05.4): return when t >= chunks*entries. Split t into (k, j). Chunk k holds the rows
  //   [k*rows_per_chunk, min((k+1)*rows_per_chunk, N*OH))     (the last chunk may be shorter).
  // partial[t] = entry_sum over those rows. A plain store: t is this thread's own slot, no atomics.
}

// 05.4, second pass: thread j (one per entry).
__global__ void weight_grad_reduce_kernel(const float* __restrict__ partial, float* __restrict__ dW,
                                          float* __restrict__ dbias, int64_t entries, int64_t weights, int chunks) {
  // TODO(05.4): return when j >= entries. sum = partial[0*entries + j] + partial[1*entries + j] + ...
  // + partial[(chunks-1)*entries + j], added in that order (a fixed order gives the same bits every
  // run). Write it to dW[j] when j < weights, else to dbias[j - weights].
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
