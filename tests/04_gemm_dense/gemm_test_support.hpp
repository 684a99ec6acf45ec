#pragma once
// Shared by lesson 04's tests: the shapes, device buffers with a NaN guard zone after the data,
// the double-precision reference product, and the tolerance of a float sum.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"

namespace gemm_test {

struct Shape {
  int M, N, K;
};

inline std::string describe(const Shape& s) {
  return "M = " + std::to_string(s.M) + ", N = " + std::to_string(s.N) + ", K = " + std::to_string(s.K);
}

// Sizes of 1, odd sizes, sizes one past and one short of the tiles (32 for the tiled kernel,
// 128 x 128 x 16 for the register-blocked one), K longer than N and M. None is a multiple of 4,
// so the register-blocked kernel takes its scalar (bounds-checked) path on all of them.
inline std::vector<Shape> odd_shapes() {
  return {{1, 1, 1},      {3, 17, 33},    {33, 1, 17},    {1000, 3, 17},  {17, 1000, 33},
          {128, 129, 127}, {257, 255, 513}, {1, 1, 1001},  {129, 33, 15},  {31, 289, 1}};
}

// Multiples of 4 (so the register-blocked kernel may use float4 loads and stores) but not of
// its 128 x 128 x 16 tile: the float4 path with edge tiles. And exact tile multiples.
inline std::vector<Shape> float4_shapes() { return {{128, 128, 128}, {256, 260, 132}, {132, 4, 20}, {4, 132, 4}}; }

// Few output tiles, long K: the register-blocked launcher splits K into slices (split-K) on a
// GPU with more SMs than output tiles. Odd and multiple-of-4 cases; one K just past 4096.
inline std::vector<Shape> long_k_shapes() { return {{64, 200, 6000}, {5, 37, 4099}, {1, 1, 4097}, {12, 36, 3136}}; }

// A few random shapes from a seed (each size 1..300).
inline std::vector<Shape> random_shapes(uint64_t seed, int count) {
  course::Rng rng(seed);
  std::vector<Shape> shapes;
  for (int i = 0; i < count; ++i) shapes.push_back({1 + rng.uniform_int(300), 1 + rng.uniform_int(300), 1 + rng.uniform_int(300)});
  return shapes;
}

inline uint64_t seed_for(const Shape& s, uint64_t salt) {
  return salt * 7919 + uint64_t(s.M) * 1000003 + uint64_t(s.N) * 1009 + uint64_t(s.K);
}

// Tolerance for a float sum of `terms` products, each of size <= 1 (inputs in [-1, 1)),
// compared with the same sum in double: course::float_sum_atol_rtol, 4 K eps used as both atol
// and rtol, so an element may be off by 4 K eps (1 + |ref|). The float sum's rounding is about
// K eps / 3 (partial sums ~ sqrt(K)/3, K roundings adding like a random walk); blocking, FMA and
// split-K change the order of the additions, not this bound. 4 K eps leaves a 12x margin, while a
// missing or doubled product (about 0.25 on average) is 100x larger even at K = 6000.
inline double sum_tolerance(int terms) { return course::float_sum_atol_rtol(std::max(terms, 1)).atol; }

constexpr size_t kGuard = 61;  // floats of NaN after every device array

// Device copy of `values` followed by kGuard NaN: a kernel that reads past the end of an input
// (instead of treating out-of-range elements as 0) spreads the NaN into its output.
inline course::DeviceBuffer<float> upload_guarded(const std::vector<float>& values) {
  std::vector<float> padded(values);
  padded.resize(values.size() + kGuard, std::nanf(""));
  return course::DeviceBuffer<float>(padded);
}

// Waits for the GPU, checks that the kGuard floats after the first n are still NaN (nothing
// wrote past the end of the output) and returns the first n.
inline std::vector<float> download_checked(const course::DeviceBuffer<float>& buf, size_t n) {
  CUDA_CHECK(cudaDeviceSynchronize());  // errors inside a kernel surface here
  std::vector<float> all = buf.to_host();
  REQUIRE(all.size() == n + kGuard);
  size_t touched = 0;
  for (size_t i = n; i < all.size(); ++i) touched += std::isnan(all[i]) ? 0 : 1;
  INFO(touched << " of the " << kGuard << " guard floats after the output (n = " << n << ") were overwritten");
  REQUIRE(touched == 0);
  all.resize(n);
  return all;
}

// The product in double, straight from the definition:
//   C[m][n] = sum_k opA(m, k) * opB(k, n) + beta * C0[m][n]
// opA(m, k) = A[m*K + k] (A is M x K), or A[k*M + m] when trans_a (A is K x M);
// opB(k, n) = B[k*N + n] (B is K x N), or B[n*K + k] when trans_b (B is N x K).
inline std::vector<double> reference_product(const std::vector<float>& A, bool trans_a, const std::vector<float>& B,
                                             bool trans_b, const Shape& s, const std::vector<float>* C0 = nullptr,
                                             double beta = 0.0) {
  const size_t M = size_t(s.M), N = size_t(s.N), K = size_t(s.K);
  std::vector<double> C(M * N, 0.0);
  auto op_a = [&](size_t m, size_t k) { return double(trans_a ? A[k * M + m] : A[m * K + k]); };
  if (trans_b) {  // both rows contiguous in k: dot products
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) {
        double sum = 0.0;
        for (size_t k = 0; k < K; ++k) sum += op_a(m, k) * double(B[n * K + k]);
        C[m * N + n] = sum;
      }
  } else {  // B's rows contiguous in n: add row k of B, times opA(m, k), into row m of C
    for (size_t m = 0; m < M; ++m)
      for (size_t k = 0; k < K; ++k) {
        const double a = op_a(m, k);
        double* c = &C[m * N];
        for (size_t n = 0; n < N; ++n) c[n] += a * double(B[k * N + n]);
      }
  }
  if (C0)
    for (size_t i = 0; i < C.size(); ++i) C[i] += beta * double((*C0)[i]);
  return C;
}

}  // namespace gemm_test
