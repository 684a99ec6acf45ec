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

void require(bool all_given, const char* function) {
  if (!all_given) throw course::Error(std::string(function) + ": a tensor is null");
}

size_t dense_workspace(const LstmShape& s) {  // every product below shares one
  const int rows = s.steps * s.batch, gates = int(s.gate_rows());
  return std::max({fast_training::dense_fused_workspace_floats(rows, s.inputs, gates),
                   fast_training::dense_fused_workspace_floats(rows, s.hidden, gates),
                   fast_training::dense_fused_workspace_floats(s.batch, s.hidden, gates)});
}

void copy_async(float* to, const float* from, size_t floats, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(to, from, floats * sizeof(float), cudaMemcpyDeviceToDevice, stream));
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
  // The gates' gradients of every step, h_{t-1} of every step (h0, then h without its last step),
  // the recurrence's part and the products'.
  const size_t rows = size_t(s.steps) * s.batch;
  return rows * s.gate_rows() + rows * s.hidden + recurrence_workspace_floats(s) + dense_workspace(s);
}

void lstm_forward_gpu(Recurrence r, const LstmShape& s, const LstmParams<float>& p, const float* x, const float* h0,
                      const float* c0, float* h, float* c, float* gates, float* workspace, cudaStream_t stream) {
  check_lstm("lstm_forward_gpu", s);
  require(p.w_ih && p.w_hh && p.b_ih && p.b_hh && x && h0 && c0 && h && c && gates && workspace, "lstm_forward_gpu");
  const size_t rows = size_t(s.steps) * s.batch;
  float* recurrence_space = workspace + rows * s.gate_rows() + rows * s.hidden;
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
  require(p.w_ih && p.w_hh && p.b_ih && p.b_hh && x && h0 && c0 && h && c && gates && dh && dx && dh0 && dc0 &&
              g.w_ih && g.w_hh && g.b_ih && g.b_hh && workspace,
          "lstm_backward_gpu");
  const int rows = s.steps * s.batch, G = int(s.gate_rows());
  const size_t BH = size_t(s.batch) * s.hidden;
  float* da = workspace;
  float* h_prev = da + size_t(rows) * G;
  float* recurrence_space = h_prev + size_t(rows) * s.hidden;
  float* dense_space = recurrence_space + recurrence_workspace_floats(s);
  // 1. The recurrence, back through time: every step's gate gradients da, and dh0, dc0.
  if (r == Recurrence::steps)
    recurrence_backward_steps(s, p.w_hh, c0, c, gates, dh, dh_next, dc_next, da, dh0, dc0, recurrence_space, stream);
  else
    recurrence_backward_persistent(s, plan_persistent(s), p.w_hh, c0, c, gates, dh, dh_next, dc_next, da, dh0, dc0,
                                   stream);
  // 2. What no step waits for, over all (T*B) rows at once: dx = da w_ih; w_ih's and b_ih's gradients
  // from x; w_hh's and b_hh's from h_{t-1} (b_ih and b_hh both add to the same sum: the same gradient).
  fast_training::dense_backward_data_fused(p.w_ih, da, nullptr, dx, rows, s.inputs, G, dense_space, stream);
  fast_training::dense_backward_weight_fused(x, da, g.w_ih, g.b_ih, rows, s.inputs, G, dense_space, stream);
  copy_async(h_prev, h0, BH, stream);
  if (s.steps > 1) copy_async(h_prev + BH, h, size_t(s.steps - 1) * BH, stream);
  fast_training::dense_backward_weight_fused(h_prev, da, g.w_hh, g.b_hh, rows, s.hidden, G, dense_space, stream);
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
    p.threads_per_unit = std::min(p.rows, kMaxPersistentThreads / units);
    if (p.threads_per_unit < 1 || (p.rows + p.threads_per_unit - 1) / p.threads_per_unit > kMaxRowsPerThread) continue;
    p.threads = (p.threads_per_unit * units + 31) / 32 * 32;
    // One unit group: the block makes all of h_t and da_t of its rows, and keeps them (4H a row).
    p.chunk = p.unit_groups == 1 ? 4 * H : 32;
    p.shared_bytes = (size_t(4) * units * (H + 1) + size_t(p.chunk) * p.rows) * sizeof(float);
    if (p.shared_bytes > size_t(shared_optin)) continue;
    return p;
  }
  throw course::Error("plan_persistent: " + std::to_string(H) + " hidden units (recurrent weights of " +
                      std::to_string(16.0 * H * H / 1e6) + " MB) for " + std::to_string(B) +
                      " sequences do not fit the shared memory and threads of " + std::to_string(sms) +
                      " SMs at once; use fewer sequences or units, or the steps recurrence");
}

}  // namespace recurrent
