#pragma once
// Lesson 10's convolution tests (10.5-10.7, and lesson 09's implicit GEMMs in TF32): each pass against
// lesson 01's loops in double, within a bound derived from the format the inputs are rounded to
// (check, below), outputs poisoned (NaN) before every call.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"
#include "device_download.hpp"

namespace conv_bound {

using course::DeviceBuffer;
using host_layers::ConvShape;

inline ConvShape shape(int n, int c, int h, int w, int o, int k, int pad, int stride) {
  ConvShape s;
  s.batch = n, s.in_channels = c, s.height = h, s.width = w, s.out_channels = o, s.kernel_h = s.kernel_w = k;
  s.pad = pad, s.stride = stride;
  return s;
}

inline std::vector<double> widen(const std::vector<float>& v, bool absolute) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = absolute ? std::fabs(double(v[i])) : double(v[i]);
  return out;
}

using course::test::download;

// |y - y_exact| <= (2u + u^2 + 2 K 2^-24) * sum_k |x_k| |w_k| + 2^-23 |bias|, with y_exact lesson 01's
// convolution of the FP32 inputs in double and u the unit roundoff of the format the inputs are
// rounded to (BF16: 2^-8, 8 significant bits; TF32: 2^-11): each product of two rounded inputs is off
// by at most (2u + u^2) |x||w|, K products summed in FP32 by about K 2^-24 of their magnitudes (twice
// that for the Tensor Cores' own sums), the bias added once more. Zeros from the padding and from K's
// padding to whole stages add nothing.
constexpr double kBf16 = 0x1p-8, kTf32 = 0x1p-11;
inline void check(const std::vector<float>& got, const std::vector<double>& exact, const std::vector<double>& scale,
                  const std::vector<double>& bias_scale, int K, const std::string& what, double u = kBf16) {
  const double factor = 2 * u + u * u + 2.0 * K * 0x1p-24;
  size_t bad = 0, worst = 0;
  double worst_ratio = 0;
  for (size_t e = 0; e < got.size(); ++e) {
    const double bound = factor * scale[e] + 0x1p-23 * bias_scale[e] + 1e-30;
    const double err = std::fabs(double(got[e]) - exact[e]);
    if (!(err <= bound)) ++bad;
    const double ratio = std::isnan(err) ? 1e30 : err / bound;
    if (ratio > worst_ratio) worst_ratio = ratio, worst = e;
  }
  INFO(what << ": " << bad << " of " << got.size() << " outputs beyond the bound; the worst [" << worst << "] = "
            << got[worst] << " (exact " << exact[worst] << ") at " << worst_ratio << " x the bound");
  REQUIRE(bad == 0);
}

using ForwardRun = std::function<void(const ConvShape&, const float* x, const float* W, const float* bias, float* y)>;
using BackwardRun = std::function<void(const ConvShape&, const float* W, const float* dy, float* dx)>;

// One forward case: random inputs, y poisoned, `run`, then the bound against lesson 01 in double.
inline void forward_case(const ConvShape& s, uint64_t seed, const ForwardRun& run, const char* what,
                         double u = kBf16) {
  CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad, s.stride);
  COURSE_INPUT_SEED(seed);
  const std::vector<float> x = course::test::random_vector(s.input_size(), seed, -1.0f, 1.0f);
  const std::vector<float> W = course::test::random_vector(s.weight_size(), seed + 1, -0.5f, 0.5f);
  const std::vector<float> bias = course::test::random_vector(size_t(s.out_channels), seed + 2, -0.3f, 0.3f);
  DeviceBuffer<float> d_x(x), d_W(W), d_bias(bias), d_y(s.output_size());
  CUDA_CHECK(cudaMemset(d_y.data(), 0xff, s.output_size() * sizeof(float)));
  run(s, d_x.data(), d_W.data(), d_bias.data(), d_y.data());
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<double> exact(s.output_size()), scale(s.output_size()), bias_scale(s.output_size());
  const std::vector<double> zeros(size_t(s.out_channels), 0.0);
  host_layers::conv2d_forward<double>(s, widen(x, false).data(), widen(W, false).data(), widen(bias, false).data(),
                                      exact.data());
  host_layers::conv2d_forward<double>(s, widen(x, true).data(), widen(W, true).data(), zeros.data(), scale.data());
  const std::vector<double> abs_bias = widen(bias, true);
  const size_t plane = size_t(s.out_h()) * s.out_w();
  for (size_t e = 0; e < bias_scale.size(); ++e) bias_scale[e] = abs_bias[e / plane % s.out_channels];
  check(download(d_y.data(), s.output_size()), exact, scale, bias_scale, s.in_channels * s.kernel_h * s.kernel_w, what,
        u);
}

// One input-gradient case: dx poisoned, `run`, the bound against lesson 01's backward in double
// (x only feeds dW, which is not looked at).
inline void backward_case(const ConvShape& s, uint64_t seed, const BackwardRun& run, const char* what,
                          double u = kBf16) {
  CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad);
  COURSE_INPUT_SEED(seed);
  const std::vector<float> W = course::test::random_vector(s.weight_size(), seed, -0.5f, 0.5f);
  const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1, -1.0f, 1.0f);
  DeviceBuffer<float> d_W(W), d_dy(dy), d_dx(s.input_size());
  CUDA_CHECK(cudaMemset(d_dx.data(), 0xff, s.input_size() * sizeof(float)));
  run(s, d_W.data(), d_dy.data(), d_dx.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> x(s.input_size(), 0.0), exact(s.input_size()), scale(s.input_size()), dW(s.weight_size()),
      dbias(size_t(s.out_channels));
  host_layers::conv2d_backward<double>(s, x.data(), widen(W, false).data(), widen(dy, false).data(), exact.data(),
                                       dW.data(), dbias.data());
  host_layers::conv2d_backward<double>(s, x.data(), widen(W, true).data(), widen(dy, true).data(), scale.data(),
                                       dW.data(), dbias.data());
  check(download(d_dx.data(), s.input_size()), exact, scale, std::vector<double>(s.input_size(), 0.0),
        s.out_channels * s.kernel_h * s.kernel_w, what, u);
}

using WeightRun = std::function<void(const ConvShape&, const float* x, const float* dy, float* dW, float* dbias)>;

// One weight-gradient case: dW and dbias poisoned, `run`, then dW within the bound above (its K: every
// pixel of every image) and dbias within (u_bias + 2 K 2^-24) sum |dy| (u_bias: how dy is rounded on
// its way into dbias's sums; 0 when they add dy's FP32 values).
inline void weight_case(const ConvShape& s, uint64_t seed, const WeightRun& run, const char* what, double u,
                        double u_bias) {
  CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad);
  COURSE_INPUT_SEED(seed);
  const std::vector<float> x = course::test::random_vector(s.input_size(), seed, -1.0f, 1.0f);
  const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1, -1.0f, 1.0f);
  DeviceBuffer<float> d_x(x), d_dy(dy), d_dW(s.weight_size()), d_db(size_t(s.out_channels));
  CUDA_CHECK(cudaMemset(d_dW.data(), 0xff, s.weight_size() * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_db.data(), 0xff, size_t(s.out_channels) * sizeof(float)));
  run(s, d_x.data(), d_dy.data(), d_dW.data(), d_db.data());
  CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<double> zero_w(s.weight_size(), 0.0);
  std::vector<double> dx(s.input_size()), dW(s.weight_size()), db(size_t(s.out_channels)), dW_scale(s.weight_size()),
      db_scale(size_t(s.out_channels));
  host_layers::conv2d_backward<double>(s, widen(x, false).data(), zero_w.data(), widen(dy, false).data(), dx.data(),
                                       dW.data(), db.data());
  host_layers::conv2d_backward<double>(s, widen(x, true).data(), zero_w.data(), widen(dy, true).data(), dx.data(),
                                       dW_scale.data(), db_scale.data());
  const int K = s.batch * s.out_h() * s.out_w();
  check(download(d_dW.data(), s.weight_size()), dW, dW_scale, std::vector<double>(s.weight_size(), 0.0), K,
        std::string(what) + " dW", u);
  const std::vector<float> got_db = download(d_db.data(), size_t(s.out_channels));
  for (int o = 0; o < s.out_channels; ++o) {
    CAPTURE(o, got_db[o], db[o]);
    REQUIRE(std::fabs(got_db[o] - db[o]) <= (u_bias + 2.0 * K * 0x1p-24) * db_scale[o] + 1e-30);
  }
}

}  // namespace conv_bound
