// Lesson 16, step 16.1: the LSTM cell over a sequence, forward, and backpropagation through time.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "recurrent.hpp"

namespace recurrent {

namespace {

template <typename T>
T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

}  // namespace

template <typename T>
void lstm_forward(const LstmShape& s, const LstmParams<T>& p, const T* x, const T* h0, const T* c0, T* h, T* c,
                  T* gates) {
  check_lstm("lstm_forward", s);
  check_tensors("lstm_forward", p.w_ih && p.w_hh && p.b_ih && p.b_hh && x && h0 && c0 && h && c && gates);
  const int B = s.batch, I = s.inputs, H = s.hidden;
  const size_t G = s.gate_rows();
  std::vector<T> a(G);
  for (int t = 0; t < s.steps; ++t)
    for (int b = 0; b < B; ++b) {
      const size_t row = size_t(t) * B + b;  // (t, b): its x, h, c and gates
      const T* xt = x + row * I;
      const T* h_prev = t > 0 ? h + (row - B) * H : h0 + size_t(b) * H;
      const T* c_prev = t > 0 ? c + (row - B) * H : c0 + size_t(b) * H;
      for (size_t r = 0; r < G; ++r) {
        T sum = p.b_ih[r] + p.b_hh[r];
        for (int k = 0; k < I; ++k) sum += p.w_ih[r * I + k] * xt[k];
        for (int k = 0; k < H; ++k) sum += p.w_hh[r * H + k] * h_prev[k];
        a[r] = sum;
      }
      T* gt = gates + row * G;
      for (int j = 0; j < H; ++j) {
        const T i = sigmoid(a[j]), f = sigmoid(a[H + j]), g = std::tanh(a[2 * H + j]), o = sigmoid(a[3 * H + j]);
        gt[j] = i, gt[H + j] = f, gt[2 * H + j] = g, gt[3 * H + j] = o;
        const T cell = f * c_prev[j] + i * g;
        c[row * H + j] = cell;
        h[row * H + j] = o * std::tanh(cell);
      }
    }
}

template <typename T>
void lstm_backward(const LstmShape& s, const LstmParams<T>& p, const T* x, const T* h0, const T* c0, const T* h,
                   const T* c, const T* gates, const T* dh, const T* dh_next, const T* dc_next, T* dx, T* dh0,
                   T* dc0, const LstmGrads<T>& g) {
  check_lstm("lstm_backward", s);
  check_tensors("lstm_backward", p.w_ih && p.w_hh && p.b_ih && p.b_hh && x && h0 && c0 && h && c && gates && dh && dx &&
                                     dh0 && dc0 && g.w_ih && g.w_hh && g.b_ih && g.b_hh);
  const int B = s.batch, I = s.inputs, H = s.hidden;
  const size_t G = s.gate_rows();
  std::fill(g.w_ih, g.w_ih + G * I, T(0));
  std::fill(g.w_hh, g.w_hh + G * H, T(0));
  std::fill(g.b_ih, g.b_ih + G, T(0));
  std::fill(g.b_hh, g.b_hh + G, T(0));
  // The gradients of h_t and c_t that step t + 1 sends back (from after the last step: dh_next, dc_next).
  std::vector<T> dh_carry(size_t(B) * H, T(0)), dc_carry(size_t(B) * H, T(0));
  if (dh_next) std::copy(dh_next, dh_next + dh_carry.size(), dh_carry.begin());
  if (dc_next) std::copy(dc_next, dc_next + dc_carry.size(), dc_carry.begin());
  std::vector<T> da(G);  // the gradient of the four gates' pre-activations
  for (int t = s.steps - 1; t >= 0; --t)
    for (int b = 0; b < B; ++b) {
      const size_t row = size_t(t) * B + b;
      const T* xt = x + row * I;
      const T* h_prev = t > 0 ? h + (row - B) * H : h0 + size_t(b) * H;
      const T* c_prev = t > 0 ? c + (row - B) * H : c0 + size_t(b) * H;
      const T* gt = gates + row * G;
      T* dh_b = dh_carry.data() + size_t(b) * H;
      T* dc_b = dc_carry.data() + size_t(b) * H;
      for (int j = 0; j < H; ++j) {
        const T i = gt[j], f = gt[H + j], gg = gt[2 * H + j], o = gt[3 * H + j];
        const T tanh_c = std::tanh(c[row * H + j]);
        const T dh_t = dh[row * H + j] + dh_b[j];
        const T dc_t = dc_b[j] + dh_t * o * (T(1) - tanh_c * tanh_c);
        da[j] = dc_t * gg * i * (T(1) - i);
        da[H + j] = dc_t * c_prev[j] * f * (T(1) - f);
        da[2 * H + j] = dc_t * i * (T(1) - gg * gg);
        da[3 * H + j] = dh_t * tanh_c * o * (T(1) - o);
        dc_b[j] = dc_t * f;  // to c_{t-1}
      }
      for (size_t r = 0; r < G; ++r) {
        g.b_ih[r] += da[r];
        g.b_hh[r] += da[r];
        for (int k = 0; k < I; ++k) g.w_ih[r * I + k] += da[r] * xt[k];
        for (int k = 0; k < H; ++k) g.w_hh[r * H + k] += da[r] * h_prev[k];
      }
      for (int k = 0; k < I; ++k) {
        T sum = 0;
        for (size_t r = 0; r < G; ++r) sum += p.w_ih[r * I + k] * da[r];
        dx[row * I + k] = sum;
      }
      for (int k = 0; k < H; ++k) {  // to h_{t-1}
        T sum = 0;
        for (size_t r = 0; r < G; ++r) sum += p.w_hh[r * H + k] * da[r];
        dh_b[k] = sum;
      }
    }
  std::copy(dh_carry.begin(), dh_carry.end(), dh0);
  std::copy(dc_carry.begin(), dc_carry.end(), dc0);
}

template void lstm_forward<float>(const LstmShape&, const LstmParams<float>&, const float*, const float*, const float*,
                                  float*, float*, float*);
template void lstm_forward<double>(const LstmShape&, const LstmParams<double>&, const double*, const double*,
                                   const double*, double*, double*, double*);
template void lstm_backward<float>(const LstmShape&, const LstmParams<float>&, const float*, const float*,
                                   const float*, const float*, const float*, const float*, const float*,
                                   const float*, const float*, float*, float*, float*, const LstmGrads<float>&);
template void lstm_backward<double>(const LstmShape&, const LstmParams<double>&, const double*, const double*,
                                    const double*, const double*, const double*, const double*, const double*,
                                    const double*, const double*, double*, double*, double*,
                                    const LstmGrads<double>&);

}  // namespace recurrent
