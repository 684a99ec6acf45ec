#pragma once
// Shared by lesson 04's tests: the shapes, device buffers with a NaN guard zone after the data,
// the double-precision reference product, the tolerance of a float sum, and check_product, which
// runs one product on poisoned, guarded device buffers and compares it with the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
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
// 64 x 64 x 8 for the 1-D tile, 128 x 128 x 16 for the others), K longer than N and M. None is a
// multiple of 4, so the vectorised kernels take their scalar (bounds-checked) path on all of them.
inline std::vector<Shape> odd_shapes() {
  return {{1, 1, 1},      {3, 17, 33},    {33, 1, 17},    {1000, 3, 17},  {17, 1000, 33},
          {128, 129, 127}, {257, 255, 513}, {1, 1, 1001},  {129, 33, 15},  {31, 289, 1}};
}

// Multiples of 4 (so the vectorised kernels may use float4 loads and stores) but not of their
// 128 x 128 x 16 tile: the float4 path with edge tiles. And exact tile multiples.
inline std::vector<Shape> float4_shapes() { return {{128, 128, 128}, {256, 260, 132}, {132, 4, 20}, {4, 132, 4}}; }

// Few output tiles, long K: the double-buffered launcher splits K into slices (split-K) on a
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

// The three products, each a layout of the two operands (see reference_product):
//   ab:   C = A * B,   A [M x K], B [K x N]
//   a_bt: C = A * B^T, A [M x K], B [N x K]
//   at_b: C = A^T * B, A [K x M], B [K x N]
enum class Product { ab, a_bt, at_b };

inline const char* product_name(Product p) {
  return p == Product::ab ? "A*B" : p == Product::a_bt ? "A*B^T" : "A^T*B";
}

// Computes the product into C from device A, B (already offset), as the kernel under test does.
using ProductRun = std::function<void(const float* A, const float* B, float* C)>;

// Runs `run` once and checks C against the product in double:
//   * A, B are random in [-1, 1) (seeded, non-uniform) and followed by NaN: reading past them
//     (instead of zero-filling the edge tiles) spreads NaN into C;
//   * C is NaN before the call, everywhere, and for beta != 0 holds known values C0 (the
//     reference adds beta * C0): an element never written stays NaN, and beta == 0 must not read
//     C (0 * NaN is NaN); nothing after C may be written;
//   * offset > 0 starts every matrix that many floats into its buffer (not 16-byte aligned for
//     offset 1): float4 accesses there would fault or read the wrong elements; the floats before
//     each matrix must not be read (finite junk in A and B) or written (C).
inline void check_product(const std::string& what, const ProductRun& run, Product product, const Shape& s, float beta,
                          uint64_t seed, size_t offset = 0) {
  INFO(what << " " << product_name(product) << ": " << describe(s) << ", beta = " << beta << ", offset = " << offset);
  COURSE_INPUT_SEED(seed);
  const size_t a_size = size_t(s.M) * s.K, b_size = size_t(s.K) * s.N, c_size = size_t(s.M) * s.N;
  // The same sizes for every product; only the layout in memory differs.
  const std::vector<float> A = course::test::random_vector(a_size, seed, -1.0f, 1.0f);
  const std::vector<float> B = course::test::random_vector(b_size, seed + 1, -1.0f, 1.0f);
  const std::vector<float> C0 = course::test::random_vector(c_size, seed + 2, -1.0f, 1.0f);
  const bool trans_a = product == Product::at_b, trans_b = product == Product::a_bt;
  const std::vector<double> ref = reference_product(A, trans_a, B, trans_b, s, &C0, beta);

  static constexpr float kJunk = 7.0f;  // finite, before each matrix: must be neither read nor written
  auto with_offset = [offset](const std::vector<float>& v) {
    std::vector<float> padded(offset, kJunk);
    padded.insert(padded.end(), v.begin(), v.end());
    return padded;
  };
  course::DeviceBuffer<float> dA = upload_guarded(with_offset(A));
  course::DeviceBuffer<float> dB = upload_guarded(with_offset(B));
  course::DeviceBuffer<float> dC(offset + c_size + kGuard);
  dC.poison();  // NaN everywhere; for beta != 0 the matrix itself then gets its known values
  if (beta != 0.0f) dC.upload(with_offset(C0));
  run(dA.data() + offset, dB.data() + offset, dC.data() + offset);
  std::vector<float> got = download_checked(dC, offset + c_size);
  for (size_t i = 0; i < offset; ++i) {
    INFO("the float " << offset - i << " before C was written");
    REQUIRE((beta == 0.0f ? std::isnan(got[i]) : got[i] == kJunk));
  }
  got.erase(got.begin(), got.begin() + long(offset));
  // Why: see sum_tolerance; beta * C adds one more rounding of a value <= 1, inside the margin.
  const double tol = sum_tolerance(s.K);
  REQUIRE_ALL_CLOSE(got, ref, tol, tol);
}

// A hand-checkable case: I (M x M) * B = B exactly (each output is one product with 1 plus
// zeros), for a B that is not a tile multiple.
inline void check_identity(gemm_dense::MatmulKernel kernel) {
  INFO(gemm_dense::kernel_name(kernel));
  const int M = 131, N = 75;
  std::vector<float> I(size_t(M) * M, 0.0f);
  for (int i = 0; i < M; ++i) I[size_t(i) * M + i] = 1.0f;
  const std::vector<float> B = course::test::random_vector(size_t(M) * N, 4321);
  course::DeviceBuffer<float> dI = upload_guarded(I), dB = upload_guarded(B);
  course::DeviceBuffer<float> dC(B.size() + kGuard);
  dC.poison();
  gemm_dense::matmul(kernel, dI.data(), dB.data(), dC.data(), M, N, M);
  const std::vector<float> got = download_checked(dC, B.size());
  REQUIRE_ALL_CLOSE(got, B, 0.0, 0.0);  // exact: x * 1 + 0 + ... + 0 rounds to x
}

}  // namespace gemm_test
