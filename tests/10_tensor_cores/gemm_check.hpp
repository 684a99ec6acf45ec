#pragma once
// Lesson 10's GEMM tests (10.2-10.4, 10.8): each GEMM against a GEMM in double of the same FP32
// inputs, within a bound derived from the formats (see bound_factor), C poisoned (NaN) before
// every call, random non-uniform inputs.
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "format_reference.hpp"

namespace gemm_check {

using course::DeviceBuffer;

struct Size {
  int M, N, K;
};

// |C - C_exact| <= bound_factor * sum_k |a_ik| |b_kj|, with C_exact the product of the FP32
// inputs in double:
//   * a product a*b of inputs off by relative errors of at most ua and ub is off by at most
//     (ua + ub + ua ub) |a||b|. Rounding to nearest a format with p significant bits: 2^-p
//     (TF32: 2^-11, BF16: 2^-8); dropping the low bits instead (toward zero): 2^-(p-1);
//   * K products summed in FP32 add at most about K * 2^-24 of the sum of their magnitudes (the
//     Tensor Cores' internal sums may round less kindly: 2 K * 2^-24).
inline double bound_factor(double ua, double ub, int K) { return ua + ub + ua * ub + 2.0 * K * 0x1p-24; }

inline void check_gemm(const std::vector<float>& got, const std::vector<float>& a, const std::vector<float>& b, Size s,
                       double ua, double ub) {
  size_t bad = 0, worst = 0;
  double worst_ratio = 0;
  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < s.N; ++j) {
      double exact = 0, scale = 0;
      for (int k = 0; k < s.K; ++k) {
        exact += double(a[size_t(i) * s.K + k]) * b[size_t(k) * s.N + j];
        scale += std::fabs(double(a[size_t(i) * s.K + k]) * b[size_t(k) * s.N + j]);
      }
      const size_t e = size_t(i) * s.N + j;
      const double err = std::fabs(double(got[e]) - exact), bound = bound_factor(ua, ub, s.K) * scale + 1e-30;
      if (!(err <= bound)) ++bad;
      const double ratio = std::isnan(err) ? 1e30 : err / bound;
      if (ratio > worst_ratio) worst_ratio = ratio, worst = e;
    }
  INFO("M=" << s.M << " N=" << s.N << " K=" << s.K << ": " << bad << " of " << got.size()
            << " elements beyond the bound; the worst C[" << worst / s.N << "][" << worst % s.N << "] = " << got[worst]
            << " at " << worst_ratio << " x the bound");
  REQUIRE(bad == 0);
}

// A GEMM of FP32 inputs (device pointers A, B, C and the sizes).
using GemmF32 = std::function<void(const float*, const float*, float*, int, int, int)>;
// A GEMM of BF16 inputs (their 16 bits).
using GemmB16 = std::function<void(const uint16_t*, const uint16_t*, float*, int, int, int)>;

// TF32: ua, ub = 2^-11 when both inputs are rounded to nearest.
inline void check_tf32(const GemmF32& gemm, const std::vector<Size>& cases, uint64_t seed, double ua = 0x1p-11,
                       double ub = 0x1p-11) {
  for (Size s : cases) {
    const std::vector<float> a = course::test::random_vector(size_t(s.M) * s.K, ++seed, -1.0f, 1.0f);
    const std::vector<float> b = course::test::random_vector(size_t(s.K) * s.N, ++seed, -2.0f, 0.5f);
    DeviceBuffer<float> dA(a), dB(b), dC(size_t(s.M) * s.N);
    dC.poison();
    gemm(dA.data(), dB.data(), dC.data(), s.M, s.N, s.K);
    CUDA_CHECK(cudaDeviceSynchronize());
    check_gemm(dC.to_host(), a, b, s, ua, ub);
  }
}

// BF16: the inputs are rounded to BF16 by the test (to nearest), the bound measured against the
// FP32 values they came from.
inline void check_bf16(const GemmB16& gemm, const std::vector<Size>& cases, uint64_t seed) {
  for (Size s : cases) {
    std::vector<float> a = course::test::random_vector(size_t(s.M) * s.K, ++seed, -1.0f, 1.0f);
    std::vector<float> b = course::test::random_vector(size_t(s.K) * s.N, ++seed, -0.5f, 2.0f);
    std::vector<uint16_t> ha(a.size()), hb(b.size());
    for (size_t i = 0; i < a.size(); ++i) ha[i] = course::test::reference_bf16(a[i]);
    for (size_t i = 0; i < b.size(); ++i) hb[i] = course::test::reference_bf16(b[i]);
    DeviceBuffer<uint16_t> dA(ha), dB(hb);
    DeviceBuffer<float> dC(size_t(s.M) * s.N);
    dC.poison();
    gemm(dA.data(), dB.data(), dC.data(), s.M, s.N, s.K);
    CUDA_CHECK(cudaDeviceSynchronize());
    check_gemm(dC.to_host(), a, b, s, 0x1p-8, 0x1p-8);
  }
}

// Adapts a launcher with a trailing stream argument (the default stream).
template <class F>
auto on_default_stream(F f) {
  return [f](auto A, auto B, float* C, int M, int N, int K) { f(A, B, C, M, N, K, nullptr); };
}

}  // namespace gemm_check
