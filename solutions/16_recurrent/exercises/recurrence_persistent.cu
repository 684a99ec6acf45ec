// Lesson 16, step 16.3: the LSTM's recurrence in one launch. Each block keeps its units' rows of w_hh
// in shared memory for the whole sequence and its cells' state in registers; the steps are
// separated by a barrier on the device instead of a return to the host.
//
// A step here is a few hundred instructions on a handful of warps: nothing hides their latency, so
// the time of a step is the length of its instruction chain. Everything that can be settled before
// the loop is: a thread's rows (a template parameter), its pointers (advanced a step at a time), its
// flags; the inputs of a step arrive ahead of time by cp.async.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "recurrent_gpu.hpp"

namespace cg = cooperative_groups;

namespace recurrent {

namespace {

// The cell's activations with the fast exponential and reciprocal (relative error ~1e-7, a few
// instructions): every step of the chain waits for them. Clamped so that the exponential is finite.
__device__ float sigmoid(float v) { return __fdividef(1.0f, 1.0f + __expf(-fminf(fmaxf(v, -80.0f), 80.0f))); }
__device__ float fast_tanh(float v) { return 2.0f * sigmoid(2.0f * v) - 1.0f; }

// Where a block and a thread sit in the plan (recurrent_gpu.hpp), and the thread's R rows.
template <int R>
struct Place {
  int u0, units;  // the block's first unit and how many it has (the last group may be short)
  int b0, rows;   // the block's first batch row and how many
  int unit;       // the thread's unit within the block, or -1: no unit (a warp's spare threads)
  int slice;      // its share of each sum: k = slice, slice + slices, ...
  int row[R];     // its rows within the block: row_lane + m * row_lanes
  bool has[R];    // row m exists (and the thread has a unit)
  bool owns[R];   // and this thread runs its cell: slice m % slices
};

template <int R>
__device__ Place<R> place_of(const LstmShape& s, const PersistentPlan& p) {
  Place<R> at;
  const int group = blockIdx.x % p.unit_groups, batch_group = blockIdx.x / p.unit_groups;
  at.u0 = group * p.units, at.units = min(p.units, s.hidden - at.u0);
  at.b0 = batch_group * p.rows, at.rows = min(p.rows, s.batch - at.b0);
  const int lane = threadIdx.x % p.threads_per_unit, row_lanes = p.threads_per_unit / p.slices;
  at.unit = threadIdx.x / p.threads_per_unit;
  if (at.unit >= at.units) at.unit = -1;
  at.slice = lane % p.slices;
#pragma unroll
  for (int m = 0; m < R; ++m) {
    at.row[m] = lane / p.slices + m * row_lanes;
    at.has[m] = at.unit >= 0 && at.row[m] < at.rows;
    at.owns[m] = at.has[m] && at.slice == m % p.slices;
  }
  return at;
}

// sums[m][q] += sum over this thread's k < K of weights(q, k) * part[k * rows + row m], for Q weight
// rows q: a vector of each of the block's rows, k-major in shared memory.
template <int R, int Q, typename Weights>
__device__ void dot_rows(const PersistentPlan& p, const Place<R>& at, const float* part, int K, Weights weights,
                         float (&sums)[R][Q]) {
#pragma unroll 4
  for (int k = at.slice; k < K; k += p.slices) {
    float wq[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) wq[q] = weights(q, k);
#pragma unroll
    for (int m = 0; m < R; ++m)
      if (at.has[m]) {
        const float v = part[k * at.rows + at.row[m]];
#pragma unroll
        for (int q = 0; q < Q; ++q) sums[m][q] += wq[q] * v;
      }
  }
}

// The slices' parts of each sum added up: every thread of a unit gets the whole sums. Every thread of
// the warp takes part (spare threads with zeros): slices are neighbouring lanes, a power of two.
template <int R, int Q>
__device__ void add_slices(const PersistentPlan& p, float (&sums)[R][Q]) {
  for (int offset = p.slices / 2; offset > 0; offset /= 2)
#pragma unroll
    for (int m = 0; m < R; ++m)
#pragma unroll
      for (int q = 0; q < Q; ++q) sums[m][q] += __shfl_xor_sync(0xffffffffu, sums[m][q], offset);
}

// The same sums when the vectors are in global memory, written by other blocks (row-major, `stride`
// floats a row, read through L2): they pass through shared memory `part` in chunks of `chunk` k's.
template <int R, int Q, typename Weights>
__device__ void dot_rows_global(const PersistentPlan& p, const Place<R>& at, const float* vec, int stride, int K,
                                float* part, Weights weights, float (&sums)[R][Q]) {
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

// The ring (plan.ring): each thread copies the inputs of the cells it runs, kRingSteps - 1 steps
// ahead, into their places with cp.async (which the barriers between steps do not wait for, and
// which only this thread reads: no barrier is needed to see them). Cell (unit, row) of step t has
// kRingSegments floats in slot t % kRingSteps.
struct Ring {
  float* base;
  int slot_floats, rows;
  __device__ float* at(int t, int unit, int row) const {
    return base + (t % kRingSteps) * slot_floats + (unit * rows + row) * kRingSegments;
  }
  __device__ static void copy(float* to, const float* from) { __pipeline_memcpy_async(to, from, sizeof(float)); }
};

template <int R>
__global__ void __launch_bounds__(kMaxPersistentThreads)
    forward_kernel(LstmShape s, PersistentPlan p, const float* w_hh, const float* b_hh, const float* h0,
                   const float* c0, float* gates, float* h, float* c) {
  extern __shared__ float shared[];
  const Place<R> at = place_of<R>(s, p);
  const int H = s.hidden, B = s.batch;
  const size_t gate_step = size_t(B) * 4 * H, state_step = size_t(B) * H;
  // A block with every unit (one unit group) makes all of h_t for its rows: h stays in shared memory,
  // in two buffers (step t reads one and writes the other: one barrier a step).
  const bool local = p.unit_groups == 1;
  // [gate][unit][k]: w_hh row gate * H + u0 + unit, rows of H + 1 floats (a warp's units in
  // different banks)
  float* w = shared;
  float* part = w + 4 * p.units * (H + 1);  // h_{t-1}: all of it, twice (local), or a chunk; k-major
  const int part_floats = p.chunk * p.rows;
  const Ring ring{part + (local ? 2 : 1) * part_floats, p.units * p.rows * kRingSegments, p.rows};
  for (int n = threadIdx.x; n < 4 * at.units * H; n += blockDim.x) {
    const int k = n % H, r = n / H, gate = r / at.units, unit = r % at.units;
    w[r * (H + 1) + k] = w_hh[size_t(gate * H + at.u0 + unit) * H + k];
  }
  if (local)
    for (int n = threadIdx.x; n < H * at.rows; n += blockDim.x)
      part[(n % H) * at.rows + n / H] = h0[size_t(at.b0 + n / H) * H + n % H];
  const int unit = max(at.unit, 0), j = at.u0 + unit;  // this thread's unit in the block, in the layer
  float bias[4], cell[R];
  // Row m's offsets in the gates and in c and h at step t, and in the gates at the step the ring
  // fetches next: advanced a step at a time.
  size_t gate_at[R], state_at[R], gate_ahead[R];
#pragma unroll
  for (int q = 0; q < 4; ++q) bias[q] = at.unit >= 0 ? b_hh[q * H + j] : 0.0f;
#pragma unroll
  for (int m = 0; m < R; ++m) {
    const size_t b = size_t(at.b0 + at.row[m]);
    gate_at[m] = gate_ahead[m] = b * 4 * H + j, state_at[m] = b * H + j;
    cell[m] = at.owns[m] ? c0[b * H + j] : 0.0f;
  }
  // Step t's input projections (they do not wait for the recurrence) into the ring.
  const auto fetch = [&](int t) {
#pragma unroll
    for (int m = 0; m < R; ++m) {
      if (at.owns[m] && t < s.steps) {
        float* to = ring.at(t, unit, at.row[m]);
#pragma unroll
        for (int q = 0; q < 4; ++q) Ring::copy(to + q, gates + gate_ahead[m] + q * H);
      }
      gate_ahead[m] += gate_step;
    }
    __pipeline_commit();  // a group a step, empty or not: wait_prior counts steps
  };
  if (p.ring)
    for (int t = 0; t < kRingSteps - 1; ++t) fetch(t);
  const float* w_unit = w + unit * (H + 1);
  const int gate_stride = at.units * (H + 1);
  const auto weights = [&](int gate, int k) { return w_unit[gate * gate_stride + k]; };
  for (int t = 0; t < s.steps; ++t) {
    if (p.ring) {
      __pipeline_wait_prior(kRingSteps - 2);  // step t's inputs are in
      fetch(t + kRingSteps - 1);               // into the slot step t - 1 used
    }
    float sums[R][4] = {};
    float* h_next = part + ((t + 1) % 2) * part_floats;  // (local) where h_t goes
    if (local) {
      __syncthreads();  // h_{t-1} is complete; h_{t-2}'s buffer read by everyone
      if (at.unit >= 0) dot_rows(p, at, part + (t % 2) * part_floats, H, weights, sums);
    } else {
      dot_rows_global(p, at, t > 0 ? h + size_t(t - 1) * state_step : h0, H, H, part, weights, sums);
    }
    add_slices(p, sums);
#pragma unroll
    for (int m = 0; m < R; ++m) {
      if (at.owns[m]) {
        float* a = gates + gate_at[m];
        const float* in = ring.at(t, unit, at.row[m]);
        float pre[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) pre[q] = (p.ring ? in[q] : a[q * H]) + sums[m][q] + bias[q];
        const float i = sigmoid(pre[0]), f = sigmoid(pre[1]), g = fast_tanh(pre[2]), o = sigmoid(pre[3]);
        a[0] = i, a[H] = f, a[2 * H] = g, a[3 * H] = o;
        cell[m] = f * cell[m] + i * g;
        const float out = o * fast_tanh(cell[m]);
        c[state_at[m]] = cell[m];
        h[state_at[m]] = out;
        if (local) h_next[j * at.rows + at.row[m]] = out;
      }
      gate_at[m] += gate_step, state_at[m] += state_step;
    }
    if (!local) cg::this_grid().sync();  // every unit of h_t is written
  }
  __pipeline_wait_prior(0);  // no copy outlives the kernel
}

template <int R>
__global__ void __launch_bounds__(kMaxPersistentThreads)
    backward_kernel(LstmShape s, PersistentPlan p, const float* w_hh, const float* c0, const float* c,
                    const float* gates, const float* dh, const float* dh_next, const float* dc_next, float* da,
                    float* dh0, float* dc0) {
  extern __shared__ float shared[];
  const Place<R> at = place_of<R>(s, p);
  const int H = s.hidden, B = s.batch, G = 4 * H;
  const size_t gate_step = size_t(B) * G, state_step = size_t(B) * H;
  const bool local = p.unit_groups == 1;  // da_t of the block's rows made here: kept in two buffers
  float* w = shared;                      // [r][unit]: w_hh[r][u0 + unit], every gate row r < 4H
  float* part = w + 4 * p.units * (H + 1);  // da_t: all of it, twice (local), or a chunk; k-major
  const int part_floats = p.chunk * p.rows;
  const Ring ring{part + (local ? 2 : 1) * part_floats, p.units * p.rows * kRingSegments, p.rows};
  for (int n = threadIdx.x; n < G * at.units; n += blockDim.x) {
    const int r = n / at.units, unit = n % at.units;
    w[n] = w_hh[size_t(r) * H + at.u0 + unit];
  }
  const int unit = max(at.unit, 0), j = at.u0 + unit;
  float dh_carry[R], dc_carry[R];
  size_t gate_at[R], state_at[R];  // row m's offsets in the gates and in the states, at step T - 1
  size_t gate_ahead[R], state_ahead[R];  // the same for the ring's copies, kRingSteps - 1 steps ahead
#pragma unroll
  for (int m = 0; m < R; ++m) {
    const size_t b = size_t(at.b0 + at.row[m]);
    gate_at[m] = gate_ahead[m] = (s.steps - 1) * gate_step + b * G + j;
    state_at[m] = state_ahead[m] = (s.steps - 1) * state_step + b * H + j;
    dh_carry[m] = at.owns[m] && dh_next ? dh_next[b * H + j] : 0.0f;
    dc_carry[m] = at.owns[m] && dc_next ? dc_next[b * H + j] : 0.0f;
  }
  // What step t's cell of row m reads (none of it waits for the recurrence): i f g o, c_t, c_{t-1}, dh_t.
  const auto source = [&](int t, size_t g_off, size_t s_off, int m, int k) -> const float* {
    if (k < 4) return gates + g_off + k * H;
    if (k == 4) return c + s_off;
    if (k == 5) return t > 0 ? c + s_off - state_step : c0 + size_t(at.b0 + at.row[m]) * H + j;
    return dh + s_off;
  };
  const auto fetch = [&](int t) {  // step t into the ring (before the start: an empty group)
#pragma unroll
    for (int m = 0; m < R; ++m) {
      if (at.owns[m] && t >= 0) {
        float* to = ring.at(t, unit, at.row[m]);
#pragma unroll
        for (int k = 0; k < kRingSegments; ++k)
          Ring::copy(to + k, source(t, gate_ahead[m], state_ahead[m], m, k));
      }
      gate_ahead[m] -= gate_step, state_ahead[m] -= state_step;
    }
    __pipeline_commit();
  };
  if (p.ring)
    for (int k = 0; k < kRingSteps - 1; ++k) fetch(s.steps - 1 - k);
  const auto weights = [&](int, int r) { return w[r * at.units + unit]; };  // w_hh[r][j]
  for (int t = s.steps - 1; t >= 0; --t) {
    if (p.ring) {
      __pipeline_wait_prior(kRingSteps - 2);  // step t's inputs are in
      fetch(t - (kRingSteps - 1));             // into the slot step t + 1 used
    }
    float* da_here = part + (t % 2) * part_floats;  // (local) where da_t goes
#pragma unroll
    for (int m = 0; m < R; ++m) {
      if (at.owns[m]) {
        float in[kRingSegments];  // i f g o c c_prev dh
        const float* slot = ring.at(t, unit, at.row[m]);
#pragma unroll
        for (int k = 0; k < kRingSegments; ++k)
          in[k] = p.ring ? slot[k] : *source(t, gate_at[m], state_at[m], m, k);
        const float i = in[0], f = in[1], g = in[2], o = in[3];
        const float tanh_c = fast_tanh(in[4]);
        const float dh_t = in[6] + dh_carry[m];
        const float dc_t = dc_carry[m] + dh_t * o * (1.0f - tanh_c * tanh_c);
        const float d[4] = {dc_t * g * i * (1.0f - i), dc_t * in[5] * f * (1.0f - f), dc_t * i * (1.0f - g * g),
                            dh_t * tanh_c * o * (1.0f - o)};
        float* out = da + gate_at[m];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          out[q * H] = d[q];
          if (local) da_here[(q * H + j) * at.rows + at.row[m]] = d[q];
        }
        dc_carry[m] = dc_t * f;
      }
      gate_at[m] -= gate_step, state_at[m] -= state_step;
    }
    // To h_{t-1}: the sum over the 4H gate rows r of w_hh[r][j] * da_t[b][r].
    float sums[R][1] = {};
    if (local) {
      __syncthreads();  // da_t of every unit is in; da_{t+2}'s buffer read by everyone
      if (at.unit >= 0) dot_rows(p, at, da_here, G, weights, sums);
    } else {
      cg::this_grid().sync();  // every unit's da_t of these rows is written
      dot_rows_global(p, at, da + size_t(t) * gate_step, G, G, part, weights, sums);
    }
    add_slices(p, sums);
#pragma unroll
    for (int m = 0; m < R; ++m) dh_carry[m] = sums[m][0];
  }
  __pipeline_wait_prior(0);
#pragma unroll
  for (int m = 0; m < R; ++m)
    if (at.owns[m]) {
      const size_t n = size_t(at.b0 + at.row[m]) * H + j;
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

// The kernel for the plan's rows per thread (1 .. kMaxRowsPerThread: the loops over them unrolled).
int rows_per_thread(const PersistentPlan& p) {
  const int lanes = p.row_lanes();
  return (p.rows + lanes - 1) / lanes;
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
  switch (rows_per_thread(p)) {
    case 1: return launch_cooperative(forward_kernel<1>, p, args, stream);
    case 2: return launch_cooperative(forward_kernel<2>, p, args, stream);
    case 3: return launch_cooperative(forward_kernel<3>, p, args, stream);
    default: return launch_cooperative(forward_kernel<kMaxRowsPerThread>, p, args, stream);
  }
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
  switch (rows_per_thread(p)) {
    case 1: return launch_cooperative(backward_kernel<1>, p, args, stream);
    case 2: return launch_cooperative(backward_kernel<2>, p, args, stream);
    case 3: return launch_cooperative(backward_kernel<3>, p, args, stream);
    default: return launch_cooperative(backward_kernel<kMaxRowsPerThread>, p, args, stream);
  }
}

}  // namespace recurrent
