// Lesson 09, step 09.7: the dense layer's GEMMs with their neighbours in the epilogue.
// The operands are plain row-major matrices (given below); what each GEMM does with a finished
// value, its epilogue `finish`, is the step.
#pragma once
#include <algorithm>
#include <string>

#include "conv_implicit.cuh"
#include "course/error.hpp"
#include "dense_small.cuh"
#include "fast_training.hpp"

namespace fast_training {
namespace {

// Where a block's results go: with a split reduction, slice blockIdx.z's partial sums to
// partial[z][m][n] (finish runs later, on the totals); without, straight to finish.
struct Output {
  float* partial;  // null: no split
  int M, N;
  template <class G>
  __device__ void put(const G& g, int m, int n, float v) const {
    if (partial) partial[(size_t(blockIdx.z) * M + m) * N + n] = v;
    else g.finish(m, n, v);
  }
};

// ---- forward: C[b][o] = sum_i x[b][i] * W[o][i];  A = x (along k), B(i, o) = W[o][i] (along k) ----
struct ForwardGather {
  const float *x, *W, *bias;
  float* y;
  int batch, in, out;
  bool relu;
  Output output;
  struct ACtx { const float* row; bool inside; };
  using AKey = int;
  __device__ ACtx a_row(int b) const { return {x + size_t(b < batch ? b : 0) * in, b < batch}; }
  __device__ AKey a_key(int i) const { return i; }
  __device__ float a_load(const ACtx& a, AKey i) const { return a.inside && i < in ? __ldg(a.row + i) : 0.0f; }
  struct BCtx { const float* row; bool inside; };
  using BKey = int;
  static constexpr bool kKeyTable = false;
  __device__ BCtx b_column(int o) const { return {W + size_t(o < out ? o : 0) * in, o < out}; }
  __device__ BKey b_key(int i) const { return i; }
  __device__ float b_load(const BCtx& b, BKey i) const { return b.inside && i < in ? __ldg(b.row + i) : 0.0f; }
  __device__ void store(int b, int o, float v) const { output.put(*this, b, o, v); }
  // The epilogue: the bias and the ReLU, while the value is in a register.
  __device__ void finish(int b, int o, float v) const {
    v += __ldg(bias + o);
    y[size_t(b) * out + o] = relu ? (v > 0.0f ? v : 0.0f) : v;
  }
};

// ---- dx: C[b][i] = sum_o dy[b][o] * W[o][i];  A = dy (along k), B(o, i) = W[o][i] (along n) ----
struct DataGather {
  const float *W, *dy, *mask;
  float* dx;
  int batch, in, out;
  Output output;
  struct ACtx { const float* row; bool inside; };
  using AKey = int;
  __device__ ACtx a_row(int b) const { return {dy + size_t(b < batch ? b : 0) * out, b < batch}; }
  __device__ AKey a_key(int o) const { return o; }
  __device__ float a_load(const ACtx& a, AKey o) const { return a.inside && o < out ? __ldg(a.row + o) : 0.0f; }
  struct BCtx { int i; bool inside; };
  using BKey = int;
  static constexpr bool kKeyTable = false;
  __device__ BCtx b_column(int i) const { return {i < in ? i : 0, i < in}; }
  __device__ BKey b_key(int o) const { return o; }
  __device__ float b_load(const BCtx& b, BKey o) const {
    return b.inside && o < out ? __ldg(W + size_t(o) * in + b.i) : 0.0f;
  }
  __device__ void store(int b, int i, float v) const { output.put(*this, b, i, v); }
  // The epilogue: the ReLU before this layer lets the gradient through where its output was > 0.
  __device__ void finish(int b, int i, float v) const {
    const size_t at = size_t(b) * in + i;
    dx[at] = mask && !(__ldg(mask + at) > 0.0f) ? 0.0f : v;
  }
};

// ---- dW: C[o][i] = sum_b dy[b][o] * x[b][i], column i == in all ones (dbias);
//      A(o, b) = dy[b][o] (along m), B(b, i) = x[b][i] (along n) ----
struct WeightGather {
  const float *x, *dy;
  float *dW, *dbias;
  int batch, in, out;
  Output output;
  struct ACtx { int o; bool inside; };
  using AKey = int;
  __device__ ACtx a_row(int o) const { return {o < out ? o : 0, o < out}; }
  __device__ AKey a_key(int b) const { return b; }
  __device__ float a_load(const ACtx& a, AKey b) const {
    return a.inside && b < batch ? __ldg(dy + size_t(b) * out + a.o) : 0.0f;
  }
  struct BCtx { int i; bool inside, ones; };
  using BKey = int;
  static constexpr bool kKeyTable = false;
  __device__ BCtx b_column(int i) const { return {i < in ? i : 0, i < in, i == in}; }
  __device__ BKey b_key(int b) const { return b; }
  __device__ float b_load(const BCtx& c, BKey b) const {
    if (b >= batch) return 0.0f;
    if (c.ones) return 1.0f;
    return c.inside ? __ldg(x + size_t(b) * in + c.i) : 0.0f;
  }
  __device__ void store(int o, int i, float v) const { output.put(*this, o, i, v); }
  // The epilogue: column `in` is the bias gradient, the others the weight gradient.
  __device__ void finish(int o, int i, float v) const {
    if (i < in) dW[size_t(o) * in + i] = v;
    else dbias[o] = v;
  }
};

using ForwardTile = Tile<64, 64, 16, 4, 8, true, true>;
using DataTile = Tile<64, 64, 16, 4, 8, false, true>;
using WeightTile = Tile<64, 64, 16, 4, 8, false, false>;

void check_sizes(int batch, int in, int out, const char* what) {
  if (batch < 1 || in < 1 || out < 1)
    throw course::Error(std::string(what) + ": batch " + std::to_string(batch) + ", in " + std::to_string(in) +
                        ", out " + std::to_string(out) + " (each must be >= 1)");
}

// Slices of the reduction K for an M x N product (detail::split_k_slices' rule) and their length.
struct Split {
  int slices, chunk;
};
Split split_of(int M, int N, int K) {
  const int tiles = int(blocks_of(M, 64) * blocks_of(N, 64));
  const int wanted = detail::split_k_slices(tiles, K);
  const int chunk = detail::slice_length(K, wanted, 16);
  return {int(blocks_of(K, chunk)), chunk};
}

// Runs the engine for gather g (tile T, each stage in Math) and, with a split, the finishing pass.
template <class T, template <class> class Math, class G>
void run(G g, int M, int N, int K, float* workspace, cudaStream_t stream) {
  const Split split = split_of(M, N, K);
  g.output = {split.slices > 1 ? workspace : nullptr, M, N};
  launch_implicit_gemm<T, Math>(g, M, N, K, split.chunk, stream);
  if (split.slices > 1) launch_finish_slices(g, workspace, split.slices, M, N, stream);
}

// The three products of fast_training.hpp (dense_forward_fused, ...), each stage in Math.
template <template <class> class Math>
void dense_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out, bool relu,
                   float* workspace, cudaStream_t stream) {
  check_sizes(batch, in, out, "dense_forward_fused");
  const ForwardGather gather{x, W, bias, y, batch, in, out, relu, {}};
  if (out <= detail::kSmallOut) return detail::dense_small_forward(gather, x, W, batch, in, out, stream);
  run<ForwardTile, Math>(gather, batch, out, in, workspace, stream);
}

template <template <class> class Math>
void dense_backward_data(const float* W, const float* dy, const float* mask, float* dx, int batch, int in, int out,
                         float* workspace, cudaStream_t stream) {
  check_sizes(batch, in, out, "dense_backward_data_fused");
  const DataGather gather{W, dy, mask, dx, batch, in, out, {}};
  if (out <= detail::kSmallOut) return detail::dense_small_backward_data(gather, W, dy, batch, in, out, stream);
  run<DataTile, Math>(gather, batch, in, out, workspace, stream);
}

template <template <class> class Math>
void dense_backward_weight(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                           float* workspace, cudaStream_t stream) {
  check_sizes(batch, in, out, "dense_backward_weight_fused");
  const WeightGather gather{x, dy, dW, dbias, batch, in, out, {}};
  if (out <= detail::kSmallOut) return detail::dense_small_backward_weight(gather, x, dy, batch, in, out, stream);
  run<WeightTile, Math>(gather, out, in + 1, batch, workspace, stream);
}

}  // namespace
}  // namespace fast_training
