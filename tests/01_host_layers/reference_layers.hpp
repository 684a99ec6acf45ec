#pragma once
// Test-only reference layers in double. They are written differently from the exercises
// (a zero-padded copy instead of bounds checks, "gather" loops instead of "scatter" loops,
// max-then-find instead of a running maximum), so one mistake is unlikely to sit in both.
// Lesson 01 is the first lesson with layers, so these and hand-computed values are its references.
#include <algorithm>
#include <cmath>
#include <vector>

#include "host_layers.hpp"

namespace ref {

using host_layers::ConvShape;
using host_layers::PoolShape;
using Vec = std::vector<double>;

// y[b][o] = bias[o] + sum_i x[b][i] * W[o][i]
inline Vec dense_forward(const Vec& x, const Vec& W, const Vec& bias, int batch, int in, int out) {
  Vec y(size_t(batch) * out);
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      double sum = bias[o];
      for (int i = 0; i < in; ++i) sum += x[size_t(b) * in + i] * W[size_t(o) * in + i];
      y[size_t(b) * out + o] = sum;
    }
  return y;
}

struct DenseGrads {
  Vec dx, dW, dbias;
};
inline DenseGrads dense_backward(const Vec& x, const Vec& W, const Vec& dy, int batch, int in, int out) {
  DenseGrads g{Vec(x.size(), 0.0), Vec(W.size(), 0.0), Vec(size_t(out), 0.0)};
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      const double d = dy[size_t(b) * out + o];
      g.dbias[o] += d;
      for (int i = 0; i < in; ++i) {
        g.dx[size_t(b) * in + i] += d * W[size_t(o) * in + i];
        g.dW[size_t(o) * in + i] += d * x[size_t(b) * in + i];
      }
    }
  return g;
}

// x copied into a zero border of width pad: [N, C, H + 2 pad, W + 2 pad].
inline Vec zero_padded(const ConvShape& s, const Vec& x) {
  const int PH = s.height + 2 * s.pad, PW = s.width + 2 * s.pad;
  Vec p(size_t(s.batch) * s.in_channels * PH * PW, 0.0);
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < s.in_channels; ++c)
      for (int h = 0; h < s.height; ++h)
        for (int w = 0; w < s.width; ++w)
          p[((size_t(n) * s.in_channels + c) * PH + h + s.pad) * PW + w + s.pad] =
              x[((size_t(n) * s.in_channels + c) * s.height + h) * s.width + w];
  return p;
}

inline Vec conv2d_forward(const ConvShape& s, const Vec& x, const Vec& W, const Vec& bias) {
  const Vec p = zero_padded(s, x);
  const int PH = s.height + 2 * s.pad, PW = s.width + 2 * s.pad, OH = s.out_h(), OW = s.out_w();
  Vec y(s.output_size());
  for (int n = 0; n < s.batch; ++n)
    for (int o = 0; o < s.out_channels; ++o)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          double sum = bias[o];
          for (int c = 0; c < s.in_channels; ++c)
            for (int kh = 0; kh < s.kernel_h; ++kh)
              for (int kw = 0; kw < s.kernel_w; ++kw)
                sum += p[((size_t(n) * s.in_channels + c) * PH + oh * s.stride + kh) * PW + ow * s.stride + kw] *
                       W[((size_t(o) * s.in_channels + c) * s.kernel_h + kh) * s.kernel_w + kw];
          y[((size_t(n) * s.out_channels + o) * OH + oh) * OW + ow] = sum;
        }
  return y;
}

struct ConvGrads {
  Vec dx, dW, dbias;
};
// Gather form: each gradient element sums the terms that reach it.
//   dx[n][c][ih][iw]: over o, kh, kw with oh = (ih + pad - kh) / stride an integer in range (same for w).
//   dW[o][c][kh][kw]: over n, oh, ow of dy * (padded x).
inline ConvGrads conv2d_backward(const ConvShape& s, const Vec& x, const Vec& W, const Vec& dy) {
  const int OH = s.out_h(), OW = s.out_w(), PH = s.height + 2 * s.pad, PW = s.width + 2 * s.pad;
  ConvGrads g{Vec(s.input_size(), 0.0), Vec(s.weight_size(), 0.0), Vec(size_t(s.out_channels), 0.0)};
  auto dy_at = [&](int n, int o, int oh, int ow) { return dy[((size_t(n) * s.out_channels + o) * OH + oh) * OW + ow]; };
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < s.in_channels; ++c)
      for (int ih = 0; ih < s.height; ++ih)
        for (int iw = 0; iw < s.width; ++iw) {
          double sum = 0;
          for (int o = 0; o < s.out_channels; ++o)
            for (int kh = 0; kh < s.kernel_h; ++kh) {
              const int th = ih + s.pad - kh;
              if (th < 0 || th % s.stride != 0 || th / s.stride >= OH) continue;
              for (int kw = 0; kw < s.kernel_w; ++kw) {
                const int tw = iw + s.pad - kw;
                if (tw < 0 || tw % s.stride != 0 || tw / s.stride >= OW) continue;
                sum += dy_at(n, o, th / s.stride, tw / s.stride) *
                       W[((size_t(o) * s.in_channels + c) * s.kernel_h + kh) * s.kernel_w + kw];
              }
            }
          g.dx[((size_t(n) * s.in_channels + c) * s.height + ih) * s.width + iw] = sum;
        }
  const Vec p = zero_padded(s, x);
  for (int o = 0; o < s.out_channels; ++o) {
    for (int c = 0; c < s.in_channels; ++c)
      for (int kh = 0; kh < s.kernel_h; ++kh)
        for (int kw = 0; kw < s.kernel_w; ++kw) {
          double sum = 0;
          for (int n = 0; n < s.batch; ++n)
            for (int oh = 0; oh < OH; ++oh)
              for (int ow = 0; ow < OW; ++ow)
                sum += dy_at(n, o, oh, ow) *
                       p[((size_t(n) * s.in_channels + c) * PH + oh * s.stride + kh) * PW + ow * s.stride + kw];
          g.dW[((size_t(o) * s.in_channels + c) * s.kernel_h + kh) * s.kernel_w + kw] = sum;
        }
    for (int n = 0; n < s.batch; ++n)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) g.dbias[o] += dy_at(n, o, oh, ow);
  }
  return g;
}

struct PoolResult {
  Vec y;
  std::vector<int> argmax;  // flat index into x; the first maximum in row-major window order
};
inline PoolResult maxpool_forward(const PoolShape& s, const Vec& x) {
  const int OH = s.out_h(), OW = s.out_w();
  PoolResult r{Vec(s.output_size()), std::vector<int>(s.output_size())};
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < s.channels; ++c)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          // The window's flat indices in row-major order.
          std::vector<int> window;
          for (int kh = 0; kh < s.window; ++kh)
            for (int kw = 0; kw < s.window; ++kw)
              window.push_back(((n * s.channels + c) * s.height + oh * s.stride + kh) * s.width + ow * s.stride + kw);
          double peak = x[size_t(window[0])];
          for (int i : window) peak = std::max(peak, x[size_t(i)]);
          const auto first = std::find_if(window.begin(), window.end(), [&](int i) { return x[size_t(i)] == peak; });
          const size_t out = ((size_t(n) * s.channels + c) * OH + oh) * OW + ow;
          r.y[out] = peak;
          r.argmax[out] = *first;
        }
  return r;
}

// dx[i] = sum of dy[j] over the outputs j whose argmax is i (gather form).
inline Vec maxpool_backward(const PoolShape& s, const std::vector<int>& argmax, const Vec& dy) {
  Vec dx(s.input_size(), 0.0);
  for (size_t i = 0; i < dx.size(); ++i)
    for (size_t j = 0; j < argmax.size(); ++j)
      if (size_t(argmax[j]) == i) dx[i] += dy[j];
  return dx;
}

// Mean cross-entropy of softmax(logits) over the batch, in long double; probs receives softmax.
inline double softmax_cross_entropy(const Vec& logits, const std::vector<int>& labels, int batch, int classes,
                                    Vec* probs = nullptr) {
  long double total = 0;
  for (int b = 0; b < batch; ++b) {
    const double* z = logits.data() + size_t(b) * classes;
    const long double peak = *std::max_element(z, z + classes);
    long double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<long double>(z[k]) - peak);
    const long double log_sum = peak + std::log(sum);  // log(sum_k exp z_k)
    for (int k = 0; k < classes && probs; ++k)
      (*probs)[size_t(b) * classes + k] = static_cast<double>(std::exp(static_cast<long double>(z[k]) - log_sum));
    total += log_sum - z[labels[size_t(b)]];
  }
  return static_cast<double>(total / batch);
}

}  // namespace ref
