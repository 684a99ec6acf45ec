#pragma once
// Lesson 16 on the GPU: the LSTM of recurrent.hpp (the same layouts, the same gates i, f, g, o) on
// device pointers. Two parts of a pass are plain products over all T steps at once; only the
// recurrence, where step t waits for step t - 1, is the lesson's:
//
//   forward   1. gates = x w_ih^T + b_ih              one product of (T*B) rows (lesson 09's dense)
//             2. the recurrence, t = 0 .. T-1:        adds w_hh h_{t-1} + b_hh, runs the cell
//   backward  1. the recurrence, t = T-1 .. 0:        every step's gate gradients, dh0, dc0
//             2. dx = da w_ih, the weights' gradients  products of (T*B) rows (lesson 09's dense)
//
// The recurrence comes in two forms with one contract: 16.2 (exercises/recurrence_steps.cu) launches
// a product and a cell kernel per step; 16.3 (exercises/recurrence_persistent.cu) runs every step in
// one launch. Every function launches on `stream`, returns without waiting, and checks its
// arguments first (check_lstm, null pointers: course::Error naming itself, nothing launched).
#include <cuda_runtime.h>

#include <cstddef>

#include "recurrent.hpp"

namespace recurrent {

enum class Recurrence { steps, persistent };  // 16.2, 16.3
const char* recurrence_name(Recurrence r);     // "steps", "persistent"

// ---- given: a whole LSTM pass on the GPU (lstm_gpu.cu) ----------------------------------------------
// lstm_forward_gpu / lstm_backward_gpu: lstm_forward / lstm_backward of recurrent.hpp, every pointer
// on the device (inputs of one float each at most 2^31 - 1 elements, as check_lstm says), with the
// recurrence of `r`. workspace: lstm_gpu_workspace_floats(s) floats; dh_next and dc_next may be null,
// and dx (the inputs' gradient: not wanted when they are data).
size_t lstm_gpu_workspace_floats(const LstmShape& s);
void lstm_forward_gpu(Recurrence r, const LstmShape& s, const LstmParams<float>& p, const float* x, const float* h0,
                      const float* c0, float* h, float* c, float* gates, float* workspace, cudaStream_t stream);
void lstm_backward_gpu(Recurrence r, const LstmShape& s, const LstmParams<float>& p, const float* x, const float* h0,
                       const float* c0, const float* h, const float* c, const float* gates, const float* dh,
                       const float* dh_next, const float* dc_next, float* dx, float* dh0, float* dc0,
                       const LstmGrads<float>& g, float* workspace, cudaStream_t stream);

// ---- the recurrence's contract (16.2 and 16.3) ------------------------------------------------------
// recurrence_forward_*: on entry gates[t][b] holds the input projection x_t w_ih^T + b_ih of step t
// (4H numbers, in the order i, f, g, o); for t = 0 .. T-1 it adds w_hh h_{t-1} + b_hh (h_{-1} = h0),
// OVERWRITES gates[t][b] with the activations (i, f, g, o) and writes c[t][b], h[t][b] (c_{-1} = c0),
// exactly as lstm_forward does.
// recurrence_backward_*: from t = T-1 down to 0, the gradient of h_t (dh[t] plus what step t + 1
// sent back; at T - 1 dh_next, or nothing when null) and of c_t (dc_next at T - 1, or nothing) through
// the cell: writes da[t][b], the gradient of step t's four pre-activations (4H numbers, i f g o),
// and, after step 0, dh0 = what reaches h_{-1} and dc0 = what reaches c_{-1}. gates, c: as the forward
// pass wrote them. The weights' gradients are not its job: lstm_backward_gpu makes them from da.
// workspace: recurrence_workspace_floats(s) floats (what a form needs between steps; it may use less).
size_t recurrence_workspace_floats(const LstmShape& s);

// ---- 16.2 the recurrence one step at a time: a product and a cell kernel per step ---------------------
void recurrence_forward_steps(const LstmShape& s, const float* w_hh, const float* b_hh, const float* h0,
                              const float* c0, float* gates, float* h, float* c, float* workspace,
                              cudaStream_t stream);
void recurrence_backward_steps(const LstmShape& s, const float* w_hh, const float* c0, const float* c,
                               const float* gates, const float* dh, const float* dh_next, const float* dc_next,
                               float* da, float* dh0, float* dc0, float* workspace, cudaStream_t stream);

// ---- 16.3 the recurrence in one launch: a persistent kernel --------------------------------------------
// How the work is shared (given, lstm_gpu.cu): block (u, q) of a grid of unit_groups x batch_groups
// blocks (blockIdx.x = q * unit_groups + u) owns hidden units [u * units, (u + 1) * units) of batch
// rows [q * rows, (q + 1) * rows) (the last group of each may be short). It keeps those units' rows of
// w_hh (4 x units rows of H: the i, f, g and o rows of each unit) in shared memory for the whole
// sequence. A unit has threads_per_unit threads: slices x row_lanes. Thread k of the block has unit
// k / threads_per_unit; with l = k % threads_per_unit, it takes part l % slices of every sum (k's
// l % slices, + slices, ...) for rows l / slices + m x row_lanes of the block (m < kMaxRowsPerThread),
// the slices' parts added across neighbouring lanes; row m's cell (and its state, in registers) is
// run by the slice m % slices. Every block must be resident at once (a cooperative launch). Step t
// reads every unit of h_{t-1} (backward: of da_t):
//   unit_groups > 1: other blocks made part of it: the grid waits between steps, and the vectors go
//                    through global memory, chunk k's at a time through shared memory;
//   unit_groups = 1: the block made all of it: only the block waits, and the vectors stay in shared
//                    memory (chunk = 4H: room for a row's da_t), in two buffers (a step reads one
//                    and writes the other).
struct PersistentPlan {
  int units = 1, unit_groups = 1;  // hidden units per block; blocks along the units
  int rows = 1, batch_groups = 1;  // batch rows per block; blocks along the batch
  int threads = 32;                // per block: threads_per_unit x units, rounded up to whole warps
  int threads_per_unit = 1;        // a unit's threads: slices x row_lanes
  int slices = 1;                  // threads that share each sum: a power of two, at most 32
  int chunk = 32;                  // shared memory for the vectors: chunk x rows floats
  bool ring = false;               // room after the vectors for the steps' inputs ahead of time:
                                   // kRingSteps slots of units x rows cells of kRingSegments floats
                                   // (an optimisation: a kernel may leave it unused)
  size_t shared_bytes = 0;         // dynamic shared memory per block: 4 x units x (H + 1) floats for
                                   // the weights (a spare float a row), the vectors, the ring
  constexpr int blocks() const { return unit_groups * batch_groups; }
  constexpr int row_lanes() const { return threads_per_unit / slices; }
};
constexpr int kMaxRowsPerThread = 4;        // the (b, j) cells a thread owns at most (registers)
constexpr int kMaxPersistentThreads = 512;  // threads a block at most: declare the kernels
                                            // __launch_bounds__(kMaxPersistentThreads) (128 registers)
constexpr int kRingSteps = 4;               // the ring's slots: inputs fetched 3 steps ahead
constexpr int kRingSegments = 7;            // a cell's inputs of a step, at most: i f g o c c_prev dh
// The plan for this shape on the current device, or throws course::Error when the weights cannot be
// spread over blocks that are all resident at once (H too large for this GPU's shared memory).
// max_units > 0 caps the units per block (the tests use it to split small layers over several blocks).
PersistentPlan plan_persistent(const LstmShape& s, int max_units = 0);

void recurrence_forward_persistent(const LstmShape& s, const PersistentPlan& plan, const float* w_hh,
                                   const float* b_hh, const float* h0, const float* c0, float* gates, float* h,
                                   float* c, cudaStream_t stream);
void recurrence_backward_persistent(const LstmShape& s, const PersistentPlan& plan, const float* w_hh,
                                    const float* c0, const float* c, const float* gates, const float* dh,
                                    const float* dh_next, const float* dc_next, float* da, float* dh0, float* dc0,
                                    cudaStream_t stream);

}  // namespace recurrent
