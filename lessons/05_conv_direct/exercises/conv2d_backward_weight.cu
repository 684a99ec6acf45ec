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
  // TODO(05.3): return gradient entry j summed over the output rows r = n*OH + oh in [row_begin, row_end)
  // and every ow in [0, OW) of those rows:
  //   a bias entry (j >= O*C*KH*KW, oc = j - O*C*KH*KW):  the sum of dy[n][oc][oh][ow];
  //   a weight entry (j is the flat index of dW[oc][c][kh][kw]):  the sum of
  //     dy[n][oc][oh][ow] * x[n][c][ih][iw],  ih = oh*stride - pad + kh, iw = ow*stride - pad + kw,
  //     where a tap outside the image (zero padding) adds nothing and x is not read there.
  // Add in a fixed order (r, then ow, both increasing), starting from 0.0f. int64_t for flat indices.
  return 0.0f;
}

namespace {

// 05.3: thread t = n*entries + j (one per image n and entry j).
__global__ void weight_grad_atomic_kernel(const float* __restrict__ x, const float* __restrict__ dy, float* dW,
                                          float* dbias, Dims d, int64_t entries) {
  // TODO(05.3): thread t = n*entries + j (the launcher starts at least N*entries threads; the others do
  // nothing) adds image n's share of entry j, entry_sum over the rows [n*OH, (n+1)*OH), into dW[j]
  // (a weight entry) or dbias[j - O*C*KH*KW] (a bias entry). N threads add into every entry at once:
  // the additions must be atomic (a plain += loses some). The launcher has set dW and dbias to 0.
}

// 05.4, first pass: thread t = k*entries + j (one per chunk k and entry j).
__global__ void weight_grad_partial_kernel(const float* __restrict__ x, const float* __restrict__ dy,
                                           float* __restrict__ partial, Dims d, int64_t entries, int chunks,
                                           int rows_per_chunk) {
  // TODO(05.4): thread t = k*entries + j (at least chunks*entries threads; the others do nothing).
  // partial[t] = entry_sum of entry j over chunk k's rows,
  //   [k*rows_per_chunk, min((k+1)*rows_per_chunk, N*OH))     (the last chunk may be shorter).
  // Slot t belongs to this thread alone: a plain store, no atomics; the workspace may hold garbage.
}

// 05.4, second pass: thread j (one per entry).
__global__ void weight_grad_reduce_kernel(const float* __restrict__ partial, float* __restrict__ dW,
                                          float* __restrict__ dbias, int64_t entries, int64_t weights, int chunks) {
  // TODO(05.4): thread j (at least `entries` threads; the others do nothing) writes entry j, the sum of
  // its `chunks` partials partial[k*entries + j], added in chunk order k = 0, 1, ..., chunks-1 (a fixed
  // order gives the same bits every run), to dW[j] when j < weights, else to dbias[j - weights].
  // Overwrite, do not add: dW and dbias may hold garbage before the call.
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
