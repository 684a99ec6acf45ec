// Lesson 16, step 16.3: the LSTM's recurrence in one launch. Each block keeps its units' rows of w_hh
// in shared memory for the whole sequence and its cells' state in registers; the steps are
// separated by a barrier on the device instead of a return to the host.
//
// A step here is a few hundred instructions on a handful of warps: nothing hides their latency, so
// the time of a step is the length of its instruction chain. Everything that can be settled before
// the loop is: a thread's rows and, when its share of each sum is short, its weights (in registers:
// template parameters), its pointers (advanced a step at a time), its flags; the inputs of a step
// arrive ahead of time by cp.async.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "recurrent_gpu.hpp"

namespace cg = cooperative_groups;

namespace recurrent {

namespace {

// The cell's activations from the hardware's approximate 2^x and 1/x (relative error ~1e-7, four or
// five instructions; tiny results flushed to zero, which spares the checks for them): every step of
// the chain waits for them. Large |v| need no clamp: 2^x goes to 0 or infinity and 1/x to 1 or 0.
__device__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ float reciprocal_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
constexpr float kLog2e = 1.4426950408889634f;
__device__ float sigmoid(float v) { return reciprocal_approx(1.0f + exp2_approx(-kLog2e * v)); }
__device__ float fast_tanh(float v) {
  return fmaf(-2.0f, reciprocal_approx(1.0f + exp2_approx(2.0f * kLog2e * v)), 1.0f);
}

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

// The same for the block's own vectors (one unit group) in the four gates' sums of H terms each:
// sums[m][q] += weight(q, k) * vec(q, k, m) over the thread's k = slice, slice + slices, ... < H.
template <int R, typename Weight, typename Vector>
__device__ void dot_gates(const PersistentPlan& p, const Place<R>& at, int H, Weight weight, Vector vec,
                          float (&sums)[R][4]) {
#pragma unroll 4
  for (int k = at.slice; k < H; k += p.slices)
#pragma unroll
    for (int m = 0; m < R; ++m)
      if (at.has[m])
#pragma unroll
        for (int q = 0; q < 4; ++q) sums[m][q] += weight(q, k) * vec(q, k, m);
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
    return base + (unsigned(t) % kRingSteps) * slot_floats + (unit * rows + row) * kRingSegments;
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
      const float* h_prev = part + (t % 2) * part_floats;
      const auto vec = [&](int, int k, int m) { return h_prev[k * at.rows + at.row[m]]; };
      dot_gates(p, at, H, weights, vec, sums);
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
      // A sum per gate (four short chains instead of one long one), added before the slices are.
      float gate_sums[R][4] = {};
      const auto vec = [&](int gate, int k, int m) { return da_here[(gate * H + k) * at.rows + at.row[m]]; };
      dot_gates(p, at, H, [&](int gate, int k) { return weights(0, gate * H + k); }, vec, gate_sums);
#pragma unroll
      for (int m = 0; m < R; ++m)
        sums[m][0] = (gate_sums[m][0] + gate_sums[m][1]) + (gate_sums[m][2] + gate_sums[m][3]);
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

// ---- one unit group, a row a thread: the short chain ---------------------------------------------
// When a block has every unit of its rows (one unit group), every thread at most one row and the
// ring is there, a step needs nothing from another block, and these kernels cut its chain down:
// the slices S are a template parameter (S = 1, 2, 4, 8: the shared-memory offsets of a thread's
// terms become constants), each thread keeps its share of the weights in registers (at most KW
// terms of each sum), the vectors are kept a row at a time, a one-warp block waits with __syncwarp,
// and (forward) the slices' four sums are split among the slices as they are added up
// (reduce-scatter), so that each slice activates one gate (or two) and the cell's slice gathers
// the other activations with one shuffle each.

// A step's barrier: a block of one warp needs only the warp's.
__device__ void step_barrier(const PersistentPlan& p) {
  if (p.threads == 32)
    __syncwarp();
  else
    __syncthreads();
}

// sums[q] += w[q][i] * vec[q][i * S] over the thread's terms i < terms (k = slice + i * S < H).
template <int S, int KW>
__device__ void dot_registers(int terms, const float (&w)[4][KW], const float* const (&vec)[4], float (&sums)[4]) {
#pragma unroll
  for (int i = 0; i < KW; ++i) {
    if (i >= terms) break;
#pragma unroll
    for (int q = 0; q < 4; ++q) sums[q] = fmaf(w[q][i], vec[q][i * S], sums[q]);
  }
}

// A thread's share of the weights: w[q][i] = weight(q, k) for its k = slice + i * S < H (zero past H
// and for a spare thread).
template <int S, int KW, typename Weight>
__device__ void load_weights(const Place<1>& at, int H, Weight weight, float (&w)[4][KW]) {
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int i = 0; i < KW; ++i) {
      const int k = at.slice + i * S;
      w[q][i] = at.unit >= 0 && k < H ? weight(q, k) : 0.0f;
    }
}

// The gates a slice holds after reduce_scatter: 4 (S = 1), 2 (S = 2: i f, or g o) or 1 (S >= 4: the
// slices' two highest bits name it).
template <int S>
constexpr int kHeld = S == 1 ? 4 : S == 2 ? 2 : 1;
template <int S>
__device__ int first_held(int slice) {
  if (S == 1) return 0;
  const int upper = (slice & (S / 2)) ? 2 : 0;
  return S == 2 ? upper : upper + ((slice & (S / 4)) ? 1 : 0);
}

// The four sums added over the slices (neighbouring lanes): afterwards sums[0 .. kHeld<S>) are the
// whole sums of the gates from first_held. Each halving hands half of the gates to each half of
// the slices (each sends the other the sums it gives up); then one value is added up.
template <int S>
__device__ void reduce_scatter(int slice, float (&sums)[4]) {
  if (S >= 2) {
    const bool upper = slice & (S / 2);
    const float keep0 = upper ? sums[2] : sums[0], keep1 = upper ? sums[3] : sums[1];
    const float give0 = upper ? sums[0] : sums[2], give1 = upper ? sums[1] : sums[3];
    sums[0] = keep0 + __shfl_xor_sync(0xffffffffu, give0, S / 2);
    sums[1] = keep1 + __shfl_xor_sync(0xffffffffu, give1, S / 2);
  }
  if (S >= 4) {
    const bool upper = slice & (S / 4);
    const float keep = upper ? sums[1] : sums[0], give = upper ? sums[0] : sums[1];
    sums[0] = keep + __shfl_xor_sync(0xffffffffu, give, S / 4);
  }
#pragma unroll
  for (int offset = S / 8; offset > 0; offset /= 2) sums[0] += __shfl_xor_sync(0xffffffffu, sums[0], offset);
}

// Gate q's activation: the cell gate g (q = 2) is a tanh, the others sigmoids.
__device__ float activation(int q, float v) { return q == 2 ? fast_tanh(v) : sigmoid(v); }

template <int S, int KW>
__global__ void __launch_bounds__(kMaxPersistentThreads)
    forward_local(LstmShape s, PersistentPlan p, const float* w_hh, const float* b_hh, const float* h0,
                  const float* c0, float* gates, float* h, float* c) {
  constexpr int held = kHeld<S>;
  extern __shared__ float shared[];
  const Place<1> at = place_of<1>(s, p);
  const int H = s.hidden, rows = at.rows, row = at.row[0], slice = at.slice;
  const bool has = at.has[0], owns = at.owns[0];
  // Offsets in the tensors: below 2^31 (check_lstm); unsigned, so that one step past the end wraps.
  const unsigned gate_step = s.batch * 4 * H, state_step = s.batch * H;
  float* part = shared + 4 * p.units * (H + 1);  // h_{t-1} and h_t, H a row (the weights' room unused)
  const int part_floats = p.chunk * p.rows;
  const Ring ring{part + 2 * part_floats, p.units * p.rows * kRingSegments, p.rows};
  for (int n = threadIdx.x; n < H * rows; n += blockDim.x) part[n] = h0[size_t(at.b0) * H + n];
  const int j = max(at.unit, 0);  // the thread's unit (every unit is in the block)
  float w[4][KW];  // w_hh's rows of unit j, a gate at a time
  load_weights<S>(at, H, [&](int q, int k) { return w_hh[size_t(q * H + j) * H + k]; }, w);
  const int terms = (H - slice + S - 1) / S;
  // The gates this slice holds; one slice of those holding them fetches their inputs, adds their
  // biases and stores their activations. The cell's slice (owns) keeps c.
  const int first = first_held<S>(slice);
  const bool stores = has && (S < 4 || slice % (S < 4 ? 1 : S / 4) == 0);
  float bias[held];
#pragma unroll
  for (int n = 0; n < held; ++n) bias[n] = at.unit >= 0 ? b_hh[(first + n) * H + j] : 0.0f;
  const unsigned b = at.b0 + row, gate_first = b * 4 * H + first * H + j;
  unsigned gate_at = gate_first, state_at = b * H + j;
  float cell = owns ? c0[state_at] : 0.0f;
  const auto fetch = [&](int t) {
    if (stores && t < s.steps) {
      float* to = ring.at(t, j, row) + first;
      const float* from = gates + (t * gate_step + gate_first);
#pragma unroll
      for (int n = 0; n < held; ++n) Ring::copy(to + n, from + n * H);
    }
    __pipeline_commit();
  };
  for (int t = 0; t < kRingSteps - 1; ++t) fetch(t);
  const int base = threadIdx.x % 32 - slice;  // the lane of slice 0 of this unit and row
  for (int t = 0; t < s.steps; ++t) {
    __pipeline_wait_prior(kRingSteps - 2);  // step t's inputs are in
    fetch(t + kRingSteps - 1);
    float in[held];  // the inputs and biases, added while the sums are made
    const float* slot = ring.at(t, j, row) + first;
#pragma unroll
    for (int n = 0; n < held; ++n) in[n] = stores ? slot[n] + bias[n] : 0.0f;
    step_barrier(p);  // h_{t-1} is complete; h_{t-2}'s buffer read by everyone
    const float* h_prev = part + (t & 1) * part_floats + row * H + slice;
    const float* const vec[4] = {h_prev, h_prev, h_prev, h_prev};
    float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (has) dot_registers<S, KW>(terms, w, vec, sums);
    reduce_scatter<S>(slice, sums);
    float act[4];
    if (S == 1) {
      act[0] = sigmoid(in[0] + sums[0]), act[1] = sigmoid(in[1] + sums[1]);
      act[2] = fast_tanh(in[2 % held] + sums[2]), act[3] = sigmoid(in[3 % held] + sums[3]);
    } else {
#pragma unroll
      for (int n = 0; n < held; ++n) act[n] = activation(first + n, in[n] + sums[n]);
    }
    if (stores)
#pragma unroll
      for (int n = 0; n < held; ++n) gates[gate_at + n * H] = act[n];
    if (S == 2) {  // the other slice holds g and o
      act[2] = __shfl_sync(0xffffffffu, act[0], base + 1);
      act[3] = __shfl_sync(0xffffffffu, act[1 % held], base + 1);
    } else if (S >= 4) {  // f, g and o: a quarter, a half and three quarters of the slices on
      act[1] = __shfl_sync(0xffffffffu, act[0], base + S / 4);
      act[2] = __shfl_sync(0xffffffffu, act[0], base + S / 2);
      act[3] = __shfl_sync(0xffffffffu, act[0], base + 3 * S / 4);
    }
    if (owns) {
      cell = fmaf(act[1], cell, act[0] * act[2]);
      const float out = act[3] * fast_tanh(cell);
      c[state_at] = cell;
      h[state_at] = out;
      part[((t + 1) & 1) * part_floats + row * H + j] = out;
    }
    gate_at += gate_step, state_at += state_step;
  }
  __pipeline_wait_prior(0);
}

template <int S, int KW>
__global__ void __launch_bounds__(kMaxPersistentThreads)
    backward_local(LstmShape s, PersistentPlan p, const float* w_hh, const float* c0, const float* c,
                   const float* gates, const float* dh, const float* dh_next, const float* dc_next, float* da,
                   float* dh0, float* dc0) {
  extern __shared__ float shared[];
  const Place<1> at = place_of<1>(s, p);
  const int H = s.hidden, G = 4 * H, row = at.row[0], slice = at.slice;
  const bool has = at.has[0], owns = at.owns[0];
  // Offsets in the tensors: below 2^31 (check_lstm); unsigned, so that one step past the end wraps.
  const unsigned gate_step = s.batch * G, state_step = s.batch * H;
  float* part = shared + 4 * p.units * (H + 1);  // da_t, twice, 4H a row
  const int part_floats = p.chunk * p.rows;
  const Ring ring{part + 2 * part_floats, p.units * p.rows * kRingSegments, p.rows};
  const int j = max(at.unit, 0);
  float w[4][KW];  // w_hh[q * H + k][j]: unit j's column, a gate at a time
  load_weights<S>(at, H, [&](int q, int k) { return w_hh[size_t(q * H + k) * H + j]; }, w);
  const int terms = (H - slice + S - 1) / S;
  const unsigned b = at.b0 + row, gate_first = b * G + j, state_first = b * H + j;
  float dh_carry = owns && dh_next ? dh_next[state_first] : 0.0f;
  float dc_carry = owns && dc_next ? dc_next[state_first] : 0.0f;
  unsigned gate_at = (s.steps - 1) * gate_step + gate_first;  // step t's, from T - 1 down
  const auto fetch = [&](int t) {  // i f g o, c_t, c_{t-1}, dh_t: none waits for the recurrence
    if (owns && t >= 0) {
      float* to = ring.at(t, j, row);
      const unsigned state_t = t * state_step + state_first;
      const float* from = gates + (t * gate_step + gate_first);
#pragma unroll
      for (int q = 0; q < 4; ++q) Ring::copy(to + q, from + q * H);
      Ring::copy(to + 4, c + state_t);
      Ring::copy(to + 5, t > 0 ? c + (state_t - state_step) : c0 + state_first);
      Ring::copy(to + 6, dh + state_t);
    }
    __pipeline_commit();
  };
  for (int k = 0; k < kRingSteps - 1; ++k) fetch(s.steps - 1 - k);
  for (int t = s.steps - 1; t >= 0; --t) {
    __pipeline_wait_prior(kRingSteps - 2);
    fetch(t - (kRingSteps - 1));
    float* da_here = part + (t & 1) * part_floats + row * G;
    if (owns) {
      const float* in = ring.at(t, j, row);
      const float i = in[0], f = in[1], g = in[2], o = in[3];
      const float tanh_c = fast_tanh(in[4]);
      const float dh_t = in[6] + dh_carry;
      const float dc_t = fmaf(dh_t * o, fmaf(-tanh_c, tanh_c, 1.0f), dc_carry);
      const float d[4] = {dc_t * g * i * (1.0f - i), dc_t * in[5] * f * (1.0f - f), dc_t * i * fmaf(-g, g, 1.0f),
                          dh_t * tanh_c * o * (1.0f - o)};
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        da[gate_at + q * H] = d[q];
        da_here[q * H + j] = d[q];
      }
      dc_carry = dc_t * f;
    }
    gate_at -= gate_step;
    step_barrier(p);  // da_t of every unit is in; da_{t+2}'s buffer read by everyone
    // To h_{t-1}: the sum over the gates q and units k of w_hh[q H + k][j] * da_t[q H + k].
    const float* const vec[4] = {da_here + slice, da_here + H + slice, da_here + 2 * H + slice,
                                 da_here + 3 * H + slice};
    float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (has) dot_registers<S, KW>(terms, w, vec, sums);
    float total = (sums[0] + sums[1]) + (sums[2] + sums[3]);
#pragma unroll
    for (int offset = S / 2; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
    dh_carry = total;
  }
  __pipeline_wait_prior(0);
  if (owns) dh0[state_first] = dh_carry, dc0[state_first] = dc_carry;
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

// The kernel for the plan: the short-chain kernels (1, 2, 4 or 8 slices, 8 or 16 terms of each sum
// a thread) when the plan allows them, else the general kernel for its rows per thread.
template <template <int, int> class Local, template <int> class General>
auto pick_kernel(const LstmShape& s, const PersistentPlan& p) {
  const int R = rows_per_thread(p), terms = (s.hidden + p.slices - 1) / p.slices;
  if (p.unit_groups == 1 && p.ring && R == 1 && terms <= 16 && p.slices <= 8) {
    const bool short_terms = terms <= 8;
    switch (p.slices) {
      case 1: return short_terms ? Local<1, 8>::kernel : Local<1, 16>::kernel;
      case 2: return short_terms ? Local<2, 8>::kernel : Local<2, 16>::kernel;
      case 4: return short_terms ? Local<4, 8>::kernel : Local<4, 16>::kernel;
      default: return short_terms ? Local<8, 8>::kernel : Local<8, 16>::kernel;
    }
  }
  switch (R) {
    case 1: return General<1>::kernel;
    case 2: return General<2>::kernel;
    case 3: return General<3>::kernel;
    default: return General<kMaxRowsPerThread>::kernel;
  }
}
template <int S, int KW>
struct ForwardLocal {
  static constexpr auto kernel = forward_local<S, KW>;
};
template <int R>
struct Forward {
  static constexpr auto kernel = forward_kernel<R>;
};
template <int S, int KW>
struct BackwardLocal {
  static constexpr auto kernel = backward_local<S, KW>;
};
template <int R>
struct Backward {
  static constexpr auto kernel = backward_kernel<R>;
};

}  // namespace

void recurrence_forward_persistent(const LstmShape& s, const PersistentPlan& plan, const float* w_hh,
                                   const float* b_hh, const float* h0, const float* c0, float* gates, float* h,
                                   float* c, cudaStream_t stream) {
  check_lstm("recurrence_forward_persistent", s);
  check_tensors("recurrence_forward_persistent", w_hh && b_hh && h0 && c0 && gates && h && c);
  LstmShape shape = s;
  PersistentPlan p = plan;
  void* args[] = {&shape, &p, &w_hh, &b_hh, &h0, &c0, &gates, &h, &c};
  launch_cooperative(pick_kernel<ForwardLocal, Forward>(s, p), p, args, stream);
}

void recurrence_backward_persistent(const LstmShape& s, const PersistentPlan& plan, const float* w_hh,
                                    const float* c0, const float* c, const float* gates, const float* dh,
                                    const float* dh_next, const float* dc_next, float* da, float* dh0, float* dc0,
                                    cudaStream_t stream) {
  check_lstm("recurrence_backward_persistent", s);
  check_tensors("recurrence_backward_persistent", w_hh && c0 && c && gates && dh && da && dh0 && dc0);
  LstmShape shape = s;
  PersistentPlan p = plan;
  void* args[] = {&shape, &p, &w_hh, &c0, &c, &gates, &dh, &dh_next, &dc_next, &da, &dh0, &dc0};
  launch_cooperative(pick_kernel<BackwardLocal, Backward>(s, p), p, args, stream);
}

}  // namespace recurrent
