// Lesson 16, step 16.2: the LSTM's recurrence on the GPU, one step at a time: per step, lesson 09's
// dense product for w_hh h_{t-1} + b_hh, then one kernel for the cell's pointwise work.
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "fast_training.hpp"  // lesson 09's dense products
#include "recurrent_gpu.hpp"

namespace recurrent {

namespace {

constexpr int kThreads = 256;

__device__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

// One thread a (b, j): the four pre-activations (input projection + recurrent product), the gates,
// c_t and h_t.
__global__ void cell_forward(int B, int H, const float* recurrent, const float* c_prev, float* gates, float* c,
                             float* h) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= B * H) return;
  const int b = n / H, j = n % H;
  float* a = gates + size_t(b) * 4 * H;
  const float* r = recurrent + size_t(b) * 4 * H;
  const float i = sigmoid(a[j] + r[j]), f = sigmoid(a[H + j] + r[H + j]);
  const float g = tanhf(a[2 * H + j] + r[2 * H + j]), o = sigmoid(a[3 * H + j] + r[3 * H + j]);
  a[j] = i, a[H + j] = f, a[2 * H + j] = g, a[3 * H + j] = o;
  const float cell = f * c_prev[n] + i * g;
  c[n] = cell;
  h[n] = o * tanhf(cell);
}

// One thread a (b, j): the gradient of h_t (from outside plus what step t + 1 sent, dh_carry) and of
// c_t (dc_carry) through the cell into da; dc_carry becomes that of c_{t-1}.
__global__ void cell_backward(int B, int H, const float* dh, const float* dh_carry, float* dc_carry,
                              const float* gates, const float* c, const float* c_prev, float* da) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= B * H) return;
  const int b = n / H, j = n % H;
  const float* a = gates + size_t(b) * 4 * H;
  const float i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j];
  const float tanh_c = tanhf(c[n]);
  const float dh_t = dh[n] + dh_carry[n];
  const float dc_t = dc_carry[n] + dh_t * o * (1.0f - tanh_c * tanh_c);
  float* d = da + size_t(b) * 4 * H;
  d[j] = dc_t * g * i * (1.0f - i);
  d[H + j] = dc_t * c_prev[n] * f * (1.0f - f);
  d[2 * H + j] = dc_t * i * (1.0f - g * g);
  d[3 * H + j] = dh_t * tanh_c * o * (1.0f - o);
  dc_carry[n] = dc_t * f;
}

}  // namespace

void recurrence_forward_steps(const LstmShape& s, const float* w_hh, const float* b_hh, const float* h0,
                              const float* c0, float* gates, float* h, float* c, float* workspace,
                              cudaStream_t stream) {
  check_lstm("recurrence_forward_steps", s);
  check_tensors("recurrence_forward_steps", w_hh && b_hh && h0 && c0 && gates && h && c && workspace);
  const int B = s.batch, H = s.hidden, G = int(s.gate_rows());
  const size_t BH = size_t(B) * H;
  float* recurrent = workspace;                   // B x 4H
  float* dense_space = workspace + 4 * BH + 2 * BH;
  const int blocks = int((BH + kThreads - 1) / kThreads);
  for (int t = 0; t < s.steps; ++t) {
    const float* h_prev = t > 0 ? h + (t - 1) * BH : h0;
    const float* c_prev = t > 0 ? c + (t - 1) * BH : c0;
    fast_training::dense_forward_fused(h_prev, w_hh, b_hh, recurrent, B, H, G, false, dense_space, stream);
    cell_forward<<<blocks, kThreads, 0, stream>>>(B, H, recurrent, c_prev, gates + t * 4 * BH, c + t * BH, h + t * BH);
    CUDA_CHECK_LAUNCH();
  }
}

void recurrence_backward_steps(const LstmShape& s, const float* w_hh, const float* c0, const float* c,
                               const float* gates, const float* dh, const float* dh_next, const float* dc_next,
                               float* da, float* dh0, float* dc0, float* workspace, cudaStream_t stream) {
  check_lstm("recurrence_backward_steps", s);
  check_tensors("recurrence_backward_steps", w_hh && c0 && c && gates && dh && da && dh0 && dc0 && workspace);
  const int B = s.batch, H = s.hidden, G = int(s.gate_rows());
  const size_t BH = size_t(B) * H;
  float* dh_carry = workspace + 4 * BH;  // what step t + 1 sent back to h_t, then c_t
  float* dc_carry = dh_carry + BH;
  float* dense_space = dc_carry + BH;
  if (dh_next)
    CUDA_CHECK(cudaMemcpyAsync(dh_carry, dh_next, BH * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  else
    CUDA_CHECK(cudaMemsetAsync(dh_carry, 0, BH * sizeof(float), stream));
  if (dc_next)
    CUDA_CHECK(cudaMemcpyAsync(dc_carry, dc_next, BH * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  else
    CUDA_CHECK(cudaMemsetAsync(dc_carry, 0, BH * sizeof(float), stream));
  const int blocks = int((BH + kThreads - 1) / kThreads);
  for (int t = s.steps - 1; t >= 0; --t) {
    const float* c_prev = t > 0 ? c + (t - 1) * BH : c0;
    float* da_t = da + t * 4 * BH;
    cell_backward<<<blocks, kThreads, 0, stream>>>(B, H, dh + t * BH, dh_carry, dc_carry, gates + t * 4 * BH,
                                                   c + t * BH, c_prev, da_t);
    CUDA_CHECK_LAUNCH();
    // To h_{t-1}: da_t w_hh (after step 0: to h0).
    fast_training::dense_backward_data_fused(w_hh, da_t, nullptr, t > 0 ? dh_carry : dh0, B, H, G, dense_space,
                                             stream);
  }
  CUDA_CHECK(cudaMemcpyAsync(dc0, dc_carry, BH * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace recurrent
