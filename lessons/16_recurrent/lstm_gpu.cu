// Lesson 16 (given): a whole LSTM pass on the GPU around your recurrence (recurrent_gpu.hpp), and
// how the persistent kernel's work is shared out.
#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "fast_training.hpp"  // lesson 09's dense products
#include "recurrent_gpu.hpp"

namespace recurrent {

namespace {

size_t dense_workspace(const LstmShape& s) {  // every product below shares one
  const int rows = s.steps * s.batch, gates = int(s.gate_rows());
  return std::max({fast_training::dense_fused_workspace_floats(rows, s.inputs, gates),
                   fast_training::dense_fused_workspace_floats(rows, s.inputs + s.hidden, gates),
                   fast_training::dense_fused_workspace_floats(s.batch, s.hidden, gates)});
}

// `count` rows of `width` floats from rows `from_pitch` floats apart to rows `to_pitch` floats apart.
void copy_rows(float* to, size_t to_pitch, const float* from, size_t from_pitch, size_t width, size_t count,
               cudaStream_t stream) {
  if (count == 0) return;
  CUDA_CHECK(cudaMemcpy2DAsync(to, to_pitch * sizeof(float), from, from_pitch * sizeof(float), width * sizeof(float),
                               count, cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

const char* recurrence_name(Recurrence r) { return r == Recurrence::steps ? "steps" : "persistent"; }

size_t recurrence_workspace_floats(const LstmShape& s) {
  check_lstm("recurrence_workspace_floats", s);
  // One step's recurrent product (B x 4H), the gradients of h and c carried between steps (B x H
  // each), and lesson 09's workspace for a (B, H, 4H) product.
  const size_t B = size_t(s.batch), H = size_t(s.hidden);
  return B * 4 * H + 2 * B * H + fast_training::dense_fused_workspace_floats(s.batch, s.hidden, int(s.gate_rows()));
}

size_t lstm_gpu_workspace_floats(const LstmShape& s) {
  check_lstm("lstm_gpu_workspace_floats", s);
  // The gates' gradients of every step; [x_t | h_{t-1}] of every step side by side and the gradient
  // of [w_ih | w_hh]; the recurrence's part and the products'.
  const size_t rows = size_t(s.steps) * s.batch, width = size_t(s.inputs) + s.hidden;
  return rows * s.gate_rows() + rows * width + s.gate_rows() * width + recurrence_workspace_floats(s) +
         dense_workspace(s);
}

void lstm_forward_gpu(Recurrence r, const LstmShape& s, const LstmParams<float>& p, const float* x, const float* h0,
                      const float* c0, float* h, float* c, float* gates, float* workspace, cudaStream_t stream) {
  check_lstm("lstm_forward_gpu", s);
  check_tensors("lstm_forward_gpu",
                p.w_ih && p.w_hh && p.b_ih && p.b_hh && x && h0 && c0 && h && c && gates && workspace);
  const size_t rows = size_t(s.steps) * s.batch, width = size_t(s.inputs) + s.hidden;
  float* recurrence_space = workspace + rows * s.gate_rows() + rows * width + s.gate_rows() * width;
  float* dense_space = recurrence_space + recurrence_workspace_floats(s);
  // 1. Every step's input projection at once: gates = x w_ih^T + b_ih, (T*B) rows.
  fast_training::dense_forward_fused(x, p.w_ih, p.b_ih, gates, int(rows), s.inputs, int(s.gate_rows()), false,
                                     dense_space, stream);
  // 2. The recurrence.
  if (r == Recurrence::steps)
    recurrence_forward_steps(s, p.w_hh, p.b_hh, h0, c0, gates, h, c, recurrence_space, stream);
  else
    recurrence_forward_persistent(s, plan_persistent(s), p.w_hh, p.b_hh, h0, c0, gates, h, c, stream);
}

void lstm_backward_gpu(Recurrence r, const LstmShape& s, const LstmParams<float>& p, const float* x, const float* h0,
                       const float* c0, const float* h, const float* c, const float* gates, const float* dh,
                       const float* dh_next, const float* dc_next, float* dx, float* dh0, float* dc0,
                       const LstmGrads<float>& g, float* workspace, cudaStream_t stream) {
  check_lstm("lstm_backward_gpu", s);
  check_tensors("lstm_backward_gpu", p.w_ih && p.w_hh && p.b_ih && p.b_hh && x && h0 && c0 && h && c && gates && dh &&
                                         dh0 && dc0 && g.w_ih && g.w_hh && g.b_ih && g.b_hh && workspace);
  const int rows = s.steps * s.batch, G = int(s.gate_rows()), I = s.inputs, H = s.hidden;
  const size_t width = size_t(I) + H;
  float* da = workspace;
  float* xh = da + size_t(rows) * G;        // [x_t | h_{t-1}], rows of I + H
  float* dw = xh + size_t(rows) * width;    // the gradient of [w_ih | w_hh], 4H rows of I + H
  float* recurrence_space = dw + size_t(G) * width;
  float* dense_space = recurrence_space + recurrence_workspace_floats(s);
  // 1. The recurrence, back through time: every step's gate gradients da, and dh0, dc0.
  if (r == Recurrence::steps)
    recurrence_backward_steps(s, p.w_hh, c0, c, gates, dh, dh_next, dc_next, da, dh0, dc0, recurrence_space, stream);
  else
    recurrence_backward_persistent(s, plan_persistent(s), p.w_hh, c0, c, gates, dh, dh_next, dc_next, da, dh0, dc0,
                                   stream);
  // 2. What no step waits for, over all (T*B) rows at once: dx = da w_ih (unless dx is null), and
  // the weights' gradients: da^T [x_t | h_{t-1}] in one product, split into w_ih's and w_hh's; b_ih
  // and b_hh both add to the same sum, so their gradients are the same.
  if (dx) fast_training::dense_backward_data_fused(p.w_ih, da, nullptr, dx, rows, I, G, dense_space, stream);
  const size_t B = size_t(s.batch);
  copy_rows(xh, width, x, I, I, rows, stream);
  copy_rows(xh + I, width, h0, H, H, B, stream);
  copy_rows(xh + B * width + I, width, h, H, H, size_t(rows) - B, stream);
  fast_training::dense_backward_weight_fused(xh, da, dw, g.b_ih, rows, int(width), G, dense_space, stream);
  copy_rows(g.w_ih, I, dw, width, I, G, stream);
  copy_rows(g.w_hh, H, dw + I, width, H, G, stream);
  CUDA_CHECK(cudaMemcpyAsync(g.b_hh, g.b_ih, G * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

PersistentPlan plan_persistent(const LstmShape& s, int max_units) {
  check_lstm("plan_persistent", s);
  int device = 0, sms = 0, shared_optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const int H = s.hidden, B = s.batch;
  // As many units a block as its shared memory holds (fewer blocks to wait for between steps), one
  // block an SM (every block resident), the batch's rows over the SMs the units leave.
  for (int units = max_units > 0 ? std::min(H, max_units) : H; units >= 1; --units) {
    PersistentPlan p;
    p.units = units;
    p.unit_groups = (H + units - 1) / units;
    if (p.unit_groups > sms) break;
    p.batch_groups = std::min(B, sms / p.unit_groups);
    p.rows = (B + p.batch_groups - 1) / p.batch_groups;
    p.batch_groups = (B + p.rows - 1) / p.rows;
    // A unit's threads: enough lanes of rows that none has more than kMaxRowsPerThread, then as many
    // slices of each sum as the threads allow (a power of two, at most a warp), each slice with at
    // least 4 of the forward pass's H terms (adding the slices up costs more than a few terms).
    const int row_lanes = (p.rows + kMaxRowsPerThread - 1) / kMaxRowsPerThread;
    const int per_unit = kMaxPersistentThreads / units;
    if (per_unit < row_lanes) continue;
    p.slices = 1;
    while (p.slices < 32 && 2 * p.slices * row_lanes <= per_unit && 8 * p.slices <= H) p.slices *= 2;
    p.threads_per_unit = p.slices * row_lanes;
    p.threads = (p.threads_per_unit * units + 31) / 32 * 32;
    // One unit group: the block makes all of h_t and da_t of its rows, and keeps them (4H a row).
    p.chunk = p.unit_groups == 1 ? 4 * H : 32;
    // The weights, then the vectors (twice in a block of every unit: a step reads one, writes the
    // other), then the steps' inputs ahead of time where they fit (loads then never hold up a step).
    const size_t vectors = size_t(p.unit_groups == 1 ? 2 : 1) * p.chunk * p.rows;
    p.shared_bytes = (size_t(4) * units * (H + 1) + vectors) * sizeof(float);
    if (p.shared_bytes > size_t(shared_optin)) continue;
    const size_t ring_bytes = size_t(kRingSteps) * units * p.rows * kRingSegments * sizeof(float);
    p.ring = p.shared_bytes + ring_bytes <= size_t(shared_optin);
    if (p.ring) p.shared_bytes += ring_bytes;
    return p;
  }
  throw course::Error("plan_persistent: " + std::to_string(H) + " hidden units (recurrent weights of " +
                      std::to_string(16.0 * H * H / 1e6) + " MB) for " + std::to_string(B) +
                      " sequences do not fit the shared memory and threads of " + std::to_string(sms) +
                      " SMs at once; use fewer sequences or units, or the steps recurrence");
}

}  // namespace recurrent
