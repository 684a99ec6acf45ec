// Lesson 16, step 16.3: the LSTM's recurrence in one launch. Each block keeps its units' rows of w_hh
// in shared memory for the whole sequence and its cells' state in registers; the steps are
// separated by a barrier on the device instead of a return to the host.
#include <cooperative_groups.h>

#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "recurrent_gpu.hpp"

namespace cg = cooperative_groups;

namespace recurrent {

namespace {

__device__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

// Where a block and a thread sit in the plan (recurrent_gpu.hpp).
struct Place {
  int u0, units;  // the block's first unit and how many it has (the last group may be short)
  int b0, rows;   // the block's first batch row and how many
  int unit;       // the thread's unit within the block, or -1: no unit (a warp's spare threads)
  int lane;       // its first row within the block: rows lane, lane + threads_per_unit, ...
};

__device__ Place place_of(const LstmShape& s, const PersistentPlan& p) {
  Place at;
  const int group = blockIdx.x % p.unit_groups, batch_group = blockIdx.x / p.unit_groups;
  at.u0 = group * p.units, at.units = min(p.units, s.hidden - at.u0);
  at.b0 = batch_group * p.rows, at.rows = min(p.rows, s.batch - at.b0);
  at.unit = threadIdx.x / p.threads_per_unit, at.lane = threadIdx.x % p.threads_per_unit;
  if (at.unit >= at.units) at.unit = -1;
  return at;
}

// The rows of this thread: row lane + m * threads_per_unit of the block, for m < kMaxRowsPerThread
// while it is < rows.
__device__ bool has_row(const PersistentPlan& p, const Place& at, int m) {
  return at.unit >= 0 && at.lane + m * p.threads_per_unit < at.rows;
}

// sums[m][q] += sum over k < K of weights(q, k) * part[k * rows + row m], for Q weight rows q: a
// vector of each of the block's rows, k-major in shared memory (a warp's rows side by side).
template <int Q, typename Weights>
__device__ void dot_rows(const PersistentPlan& p, const Place& at, const float* part, int K, Weights weights,
                         float (&sums)[kMaxRowsPerThread][Q]) {
#pragma unroll 4
  for (int k = 0; k < K; ++k) {
    float wq[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) wq[q] = weights(q, k);
#pragma unroll
    for (int m = 0; m < kMaxRowsPerThread; ++m)
      if (has_row(p, at, m)) {
        const float v = part[k * at.rows + at.lane + m * p.threads_per_unit];
#pragma unroll
        for (int q = 0; q < Q; ++q) sums[m][q] += wq[q] * v;
      }
  }
}

// The same sums when the vectors are in global memory, written by other blocks (row-major, `stride`
// floats a row, read through L2): they pass through shared memory `part` in chunks of `chunk` k's.
template <int Q, typename Weights>
__device__ void dot_rows_global(const PersistentPlan& p, const Place& at, const float* vec, int stride, int K,
                                float* part, Weights weights, float (&sums)[kMaxRowsPerThread][Q]) {
  for (int k0 = 0; k0 < K; k0 += p.chunk) {
    const int kc = min(p.chunk, K - k0);
    __syncthreads();  // the last chunk's readers are done
    for (int n = threadIdx.x; n < kc * at.rows; n += blockDim.x) {
      const int row = n / kc, k = n % kc;  // k fastest: neighbours in global memory
      part[k * at.rows + row] = __ldcg(vec + size_t(at.b0 + row) * stride + k0 + k);
    }
    __syncthreads();
    if (at.unit >= 0) dot_rows(p, at, part, kc, [&](int q, int k) { return weights(q, k0 + k); }, sums);
  }
}

__global__ void __launch_bounds__(kMaxPersistentThreads)
    forward_kernel(LstmShape s, PersistentPlan p, const float* w_hh, const float* b_hh, const float* h0,
                   const float* c0, float* gates, float* h, float* c) {
  extern __shared__ float shared[];
  const Place at = place_of(s, p);
  const int H = s.hidden, B = s.batch;
  // A block with every unit (one unit group) makes all of h_t for its rows: h stays in `part`.
  const bool local = p.unit_groups == 1;
  // [gate][unit][k]: w_hh row gate * H + u0 + unit, rows of H + 1 floats (a warp's units in
  // different banks)
  float* w = shared;
  float* part = shared + 4 * p.units * (H + 1);  // h_{t-1}: all of it (local) or a chunk, k-major
  for (int n = threadIdx.x; n < 4 * at.units * H; n += blockDim.x) {
    const int k = n % H, r = n / H, gate = r / at.units, unit = r % at.units;
    w[r * (H + 1) + k] = w_hh[size_t(gate * H + at.u0 + unit) * H + k];
  }
  if (local)
    for (int n = threadIdx.x; n < H * at.rows; n += blockDim.x)
      part[(n % H) * at.rows + n / H] = h0[size_t(at.b0 + n / H) * H + n % H];
  const int j = at.u0 + max(at.unit, 0);  // this thread's unit in the layer
  float bias[4], cell[kMaxRowsPerThread];
#pragma unroll
  for (int q = 0; q < 4; ++q) bias[q] = at.unit >= 0 ? b_hh[q * H + j] : 0.0f;
#pragma unroll
  for (int m = 0; m < kMaxRowsPerThread; ++m)
    cell[m] = has_row(p, at, m) ? c0[size_t(at.b0 + at.lane + m * p.threads_per_unit) * H + j] : 0.0f;
  const float* w_unit = w + max(at.unit, 0) * (H + 1);
  const int gate_stride = at.units * (H + 1);
  const auto weights = [&](int gate, int k) { return w_unit[gate * gate_stride + k]; };
  for (int t = 0; t < s.steps; ++t) {
    // This step's input projections first: they do not wait for the recurrence, and their loads
    // overlap the sums.
    float pre[kMaxRowsPerThread][4];
#pragma unroll
    for (int m = 0; m < kMaxRowsPerThread; ++m)
      if (has_row(p, at, m)) {
        const float* a = gates + (size_t(t) * B + at.b0 + at.lane + m * p.threads_per_unit) * 4 * H;
#pragma unroll
        for (int q = 0; q < 4; ++q) pre[m][q] = a[q * H + j];
      }
    float sums[kMaxRowsPerThread][4] = {};
    if (local) {
      __syncthreads();  // h_{t-1} is complete in part
      if (at.unit >= 0) dot_rows(p, at, part, H, weights, sums);
      __syncthreads();  // and read by every thread: this step may overwrite it
    } else {
      dot_rows_global(p, at, t > 0 ? h + size_t(t - 1) * B * H : h0, H, H, part, weights, sums);
    }
#pragma unroll
    for (int m = 0; m < kMaxRowsPerThread; ++m) {
      if (!has_row(p, at, m)) continue;
      const int row = at.lane + m * p.threads_per_unit;
      const size_t n = size_t(t) * B + at.b0 + row;  // (t, b)
      const float i = sigmoid(pre[m][0] + sums[m][0] + bias[0]), f = sigmoid(pre[m][1] + sums[m][1] + bias[1]);
      const float g = tanhf(pre[m][2] + sums[m][2] + bias[2]), o = sigmoid(pre[m][3] + sums[m][3] + bias[3]);
      float* a = gates + n * 4 * H;
      a[j] = i, a[H + j] = f, a[2 * H + j] = g, a[3 * H + j] = o;
      cell[m] = f * cell[m] + i * g;
      const float out = o * tanhf(cell[m]);
      c[n * H + j] = cell[m];
      h[n * H + j] = out;
      if (local) part[j * at.rows + row] = out;
    }
    if (!local) cg::this_grid().sync();  // every unit of h_t is written
  }
}

// What step t's cell needs going backward, for one of the thread's rows: loaded a step ahead.
struct CellInputs {
  float i, f, g, o, c, c_prev, dh;
};

__device__ CellInputs load_cell(const LstmShape& s, const PersistentPlan& p, const Place& at, int m, int t, int j,
                                const float* c0, const float* c, const float* gates, const float* dh) {
  const int H = s.hidden, b = at.b0 + at.lane + m * p.threads_per_unit;
  const size_t n = size_t(t) * s.batch + b;
  const float* a = gates + n * 4 * H;
  return {a[j],           a[H + j], a[2 * H + j], a[3 * H + j], c[n * H + j],
          t > 0 ? c[(n - s.batch) * H + j] : c0[size_t(b) * H + j], dh[n * H + j]};
}

__global__ void __launch_bounds__(kMaxPersistentThreads)
    backward_kernel(LstmShape s, PersistentPlan p, const float* w_hh, const float* c0, const float* c,
                    const float* gates, const float* dh, const float* dh_next, const float* dc_next, float* da,
                    float* dh0, float* dc0) {
  extern __shared__ float shared[];
  const Place at = place_of(s, p);
  const int H = s.hidden, B = s.batch, G = 4 * H;
  const bool local = p.unit_groups == 1;  // da_t of the block's rows made here: kept in part
  float* w = shared;                      // [r][unit]: w_hh[r][u0 + unit], every gate row r < 4H
  float* part = shared + 4 * p.units * (H + 1);  // da_t: all of it (local) or a chunk, k-major
  for (int n = threadIdx.x; n < G * at.units; n += blockDim.x) {
    const int r = n / at.units, unit = n % at.units;
    w[n] = w_hh[size_t(r) * H + at.u0 + unit];
  }
  const int j = at.u0 + max(at.unit, 0);
  float dh_carry[kMaxRowsPerThread], dc_carry[kMaxRowsPerThread];
  CellInputs next[kMaxRowsPerThread];
#pragma unroll
  for (int m = 0; m < kMaxRowsPerThread; ++m) {
    const bool mine = has_row(p, at, m);
    const size_t n = size_t(at.b0 + at.lane + m * p.threads_per_unit) * H + j;
    dh_carry[m] = mine && dh_next ? dh_next[n] : 0.0f;
    dc_carry[m] = mine && dc_next ? dc_next[n] : 0.0f;
    if (mine) next[m] = load_cell(s, p, at, m, s.steps - 1, j, c0, c, gates, dh);
  }
  const auto weights = [&](int, int r) { return w[r * at.units + max(at.unit, 0)]; };  // w_hh[r][j]
  for (int t = s.steps - 1; t >= 0; --t) {
#pragma unroll
    for (int m = 0; m < kMaxRowsPerThread; ++m) {
      if (!has_row(p, at, m)) continue;
      const int row = at.lane + m * p.threads_per_unit;
      const CellInputs in = next[m];
      if (t > 0) next[m] = load_cell(s, p, at, m, t - 1, j, c0, c, gates, dh);  // the step before's, early
      const float tanh_c = tanhf(in.c);
      const float dh_t = in.dh + dh_carry[m];
      const float dc_t = dc_carry[m] + dh_t * in.o * (1.0f - tanh_c * tanh_c);
      const float d[4] = {dc_t * in.g * in.i * (1.0f - in.i), dc_t * in.c_prev * in.f * (1.0f - in.f),
                          dc_t * in.i * (1.0f - in.g * in.g), dh_t * tanh_c * in.o * (1.0f - in.o)};
      float* out = da + (size_t(t) * B + at.b0 + row) * G;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        out[q * H + j] = d[q];
        if (local) part[(q * H + j) * at.rows + row] = d[q];
      }
      dc_carry[m] = dc_t * in.f;
    }
    // To h_{t-1}: the sum over the 4H gate rows r of w_hh[r][j] * da_t[b][r].
    float sums[kMaxRowsPerThread][1] = {};
    if (local) {
      __syncthreads();  // da_t of every unit is in part
      if (at.unit >= 0) dot_rows(p, at, part, G, weights, sums);
      __syncthreads();  // and read: the step before may overwrite it
    } else {
      cg::this_grid().sync();  // every unit's da_t of these rows is written
      dot_rows_global(p, at, da + size_t(t) * B * G, G, G, part, weights, sums);
    }
#pragma unroll
    for (int m = 0; m < kMaxRowsPerThread; ++m) dh_carry[m] = sums[m][0];
  }
#pragma unroll
  for (int m = 0; m < kMaxRowsPerThread; ++m) {
    if (!has_row(p, at, m)) continue;
    const size_t n = size_t(at.b0 + at.lane + m * p.threads_per_unit) * H + j;
    dh0[n] = dh_carry[m], dc0[n] = dc_carry[m];
  }
}

void require(bool all_given, const char* function) {
  if (!all_given) throw course::Error(std::string(function) + ": a tensor is null");
}

template <typename Kernel>
void launch_cooperative(Kernel kernel, const PersistentPlan& p, void** args, cudaStream_t stream) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.shared_bytes)));
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(p.blocks()), dim3(p.threads), args,
                                         p.shared_bytes, stream));
}

}  // namespace

void recurrence_forward_persistent(const LstmShape& s, const PersistentPlan& plan, const float* w_hh,
                                   const float* b_hh, const float* h0, const float* c0, float* gates, float* h,
                                   float* c, cudaStream_t stream) {
  check_lstm("recurrence_forward_persistent", s);
  require(w_hh && b_hh && h0 && c0 && gates && h && c, "recurrence_forward_persistent");
  LstmShape shape = s;
  PersistentPlan p = plan;
  void* args[] = {&shape, &p, &w_hh, &b_hh, &h0, &c0, &gates, &h, &c};
  launch_cooperative(forward_kernel, p, args, stream);
}

void recurrence_backward_persistent(const LstmShape& s, const PersistentPlan& plan, const float* w_hh,
                                    const float* c0, const float* c, const float* gates, const float* dh,
                                    const float* dh_next, const float* dc_next, float* da, float* dh0, float* dc0,
                                    cudaStream_t stream) {
  check_lstm("recurrence_backward_persistent", s);
  require(w_hh && c0 && c && gates && dh && da && dh0 && dc0, "recurrence_backward_persistent");
  LstmShape shape = s;
  PersistentPlan p = plan;
  void* args[] = {&shape, &p, &w_hh, &c0, &c, &gates, &dh, &dh_next, &dc_next, &da, &dh0, &dc0};
  launch_cooperative(backward_kernel, p, args, stream);
}

}  // namespace recurrent
