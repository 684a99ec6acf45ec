#pragma once
// Lesson 16's tests: the LSTM of recurrent.hpp written out in double, and a loss of its outputs whose
// finite differences are the backward pass's reference.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "course/check.hpp"
#include "recurrent.hpp"

namespace lstm_test {

using Vec = std::vector<double>;
using recurrent::LstmShape;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Everything one run reads: the parameters (nn.LSTM's layout) and the inputs.
struct Inputs {
  Vec w_ih, w_hh, b_ih, b_hh, x, h0, c0;
};

// Random, non-uniform values; weights in [-0.6, 0.6] keep the gates away from saturation, so the
// finite differences see a curved function, not a flat one.
inline Inputs random_inputs(const LstmShape& s, uint64_t seed) {
  const size_t G = s.gate_rows(), I = size_t(s.inputs), H = size_t(s.hidden), B = size_t(s.batch);
  Inputs in;
  in.w_ih = course::random_doubles(G * I, seed, -0.6f, 0.6f);
  in.w_hh = course::random_doubles(G * H, seed + 1, -0.6f, 0.6f);
  in.b_ih = course::random_doubles(G, seed + 2, -0.3f, 0.3f);
  in.b_hh = course::random_doubles(G, seed + 3, -0.3f, 0.3f);
  in.x = course::random_doubles(size_t(s.steps) * B * I, seed + 4, -1.5f, 1.5f);
  in.h0 = course::random_doubles(B * H, seed + 5, -0.8f, 0.8f);
  in.c0 = course::random_doubles(B * H, seed + 6, -1.2f, 1.2f);
  return in;
}

struct Outputs {
  Vec h, c, gates;  // [T][B][H], [T][B][H], [T][B][4H] (i, f, g, o)
};

inline double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The forward pass of recurrent.hpp, one gate at a time.
inline Outputs reference_forward(const LstmShape& s, const Inputs& in) {
  const size_t B = size_t(s.batch), I = size_t(s.inputs), H = size_t(s.hidden), G = s.gate_rows();
  Outputs out{Vec(size_t(s.steps) * B * H), Vec(size_t(s.steps) * B * H), Vec(size_t(s.steps) * B * G)};
  for (size_t t = 0; t < size_t(s.steps); ++t)
    for (size_t b = 0; b < B; ++b)
      for (size_t j = 0; j < H; ++j) {
        double pre[4];
        for (size_t gate = 0; gate < 4; ++gate) {
          const size_t r = gate * H + j;
          double sum = in.b_ih[r] + in.b_hh[r];
          for (size_t k = 0; k < I; ++k) sum += in.w_ih[r * I + k] * in.x[(t * B + b) * I + k];
          for (size_t k = 0; k < H; ++k)
            sum += in.w_hh[r * H + k] * (t == 0 ? in.h0[b * H + k] : out.h[((t - 1) * B + b) * H + k]);
          pre[gate] = sum;
        }
        const double i = sigmoid(pre[0]), f = sigmoid(pre[1]), g = std::tanh(pre[2]), o = sigmoid(pre[3]);
        const double c_prev = t == 0 ? in.c0[b * H + j] : out.c[((t - 1) * B + b) * H + j];
        const double c = f * c_prev + i * g;
        out.c[(t * B + b) * H + j] = c;
        out.h[(t * B + b) * H + j] = o * std::tanh(c);
        const double gates[4] = {i, f, g, o};
        for (size_t gate = 0; gate < 4; ++gate) out.gates[(t * B + b) * G + gate * H + j] = gates[gate];
      }
  return out;
}

// A loss whose gradients are the backward pass's inputs: L = sum dh * h (every step) + sum dh_next *
// h_{T-1} + sum dc_next * c_{T-1}. Its gradient with respect to h_t is dh_t (plus dh_next at T-1),
// with respect to c_{T-1} dc_next.
struct LossWeights {
  Vec dh, dh_next, dc_next;
};

inline LossWeights random_loss(const LstmShape& s, uint64_t seed) {
  const size_t BH = size_t(s.batch) * s.hidden;
  return {course::random_doubles(size_t(s.steps) * BH, seed, -1.0f, 1.0f),
          course::random_doubles(BH, seed + 1, -1.0f, 1.0f), course::random_doubles(BH, seed + 2, -1.0f, 1.0f)};
}

inline double loss(const LstmShape& s, const Inputs& in, const LossWeights& w) {
  const Outputs out = reference_forward(s, in);
  const size_t BH = size_t(s.batch) * s.hidden, last = size_t(s.steps - 1) * BH;
  double sum = 0;
  for (size_t e = 0; e < out.h.size(); ++e) sum += w.dh[e] * out.h[e];
  for (size_t e = 0; e < BH; ++e) sum += w.dh_next[e] * out.h[last + e] + w.dc_next[e] * out.c[last + e];
  return sum;
}

// Backpropagation through time written out in double, one gate at a time: the reference of the GPU
// steps (its agreement with finite_differences is checked by the tests that use it). da holds the
// gradient of every step's four pre-activations [T][B][4H]; the rest as lstm_backward's outputs.
struct Gradients {
  Vec da, dx, dh0, dc0, w_ih, w_hh, b;  // b: the gradient of b_ih, and of b_hh (the same)
};

inline Gradients reference_backward(const LstmShape& s, const Inputs& in, const LossWeights& w) {
  const Outputs out = reference_forward(s, in);
  const size_t B = size_t(s.batch), I = size_t(s.inputs), H = size_t(s.hidden), G = s.gate_rows();
  const size_t T = size_t(s.steps);
  Gradients d{Vec(T * B * G), Vec(T * B * I, 0.0), Vec(B * H), Vec(B * H), Vec(G * I, 0.0), Vec(G * H, 0.0),
              Vec(G, 0.0)};
  Vec dh_carry = w.dh_next, dc_carry = w.dc_next;
  for (size_t t = T; t-- > 0;) {
    for (size_t b = 0; b < B; ++b)
      for (size_t j = 0; j < H; ++j) {
        const size_t n = (t * B + b) * H + j;
        const double* g4 = &out.gates[(t * B + b) * G];
        const double i = g4[j], f = g4[H + j], g = g4[2 * H + j], o = g4[3 * H + j];
        const double tanh_c = std::tanh(out.c[n]);
        const double c_prev = t == 0 ? in.c0[b * H + j] : out.c[n - B * H];
        const double dh_t = w.dh[n] + dh_carry[b * H + j];
        const double dc_t = dc_carry[b * H + j] + dh_t * o * (1 - tanh_c * tanh_c);
        double* da = &d.da[(t * B + b) * G];
        da[j] = dc_t * g * i * (1 - i);
        da[H + j] = dc_t * c_prev * f * (1 - f);
        da[2 * H + j] = dc_t * i * (1 - g * g);
        da[3 * H + j] = dh_t * tanh_c * o * (1 - o);
        dc_carry[b * H + j] = dc_t * f;
      }
    for (size_t b = 0; b < B; ++b) {
      const double* da = &d.da[(t * B + b) * G];
      for (size_t k = 0; k < H; ++k) {
        double sum = 0;
        for (size_t r = 0; r < G; ++r) sum += in.w_hh[r * H + k] * da[r];
        dh_carry[b * H + k] = sum;
      }
      const double* h_prev = t == 0 ? &in.h0[b * H] : &out.h[((t - 1) * B + b) * H];
      const double* x = &in.x[(t * B + b) * I];
      for (size_t r = 0; r < G; ++r) {
        d.b[r] += da[r];
        for (size_t k = 0; k < I; ++k) {
          d.w_ih[r * I + k] += da[r] * x[k];
          d.dx[(t * B + b) * I + k] += in.w_ih[r * I + k] * da[r];
        }
        for (size_t k = 0; k < H; ++k) d.w_hh[r * H + k] += da[r] * h_prev[k];
      }
    }
  }
  d.dh0 = dh_carry, d.dc0 = dc_carry;
  return d;
}

// Central differences of `loss` with respect to every element of in.*member (step 1e-6: the loss is
// smooth and of order 1, so truncation ~1e-12 and rounding ~1e-10 leave ~1e-9 of accuracy).
template <typename Loss>
Vec finite_differences(Inputs in, Vec Inputs::*member, Loss&& loss_of) {
  Vec& v = in.*member;
  Vec grad(v.size());
  for (size_t e = 0; e < v.size(); ++e) {
    const double keep = v[e], eps = 1e-6;
    v[e] = keep + eps;
    const double up = loss_of(in);
    v[e] = keep - eps;
    const double down = loss_of(in);
    v[e] = keep;
    grad[e] = (up - down) / (2 * eps);
  }
  return grad;
}

}  // namespace lstm_test
