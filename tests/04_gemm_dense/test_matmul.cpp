// Steps 04.1-04.3: the three rungs of the matmul ladder, C = A * B, against the product in
// double. Every rung gets the same shapes: sizes of 1, odd sizes, one past and one short of
// every tile, long K; the register-blocked rung also gets float4-friendly shapes, operands at
// addresses that are not 16-byte aligned, and the split-K shapes.
#include <cstdint>
#include <limits>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using gemm_dense::MatmulKernel;
using gemm_test::Shape;

namespace {

// C is poisoned (NaN) before the call: an element the kernel never writes stays NaN and fails.
// The inputs are followed by NaN: reading past them (instead of zero-filling) fails too.
void check_matmul(MatmulKernel kernel, const Shape& s, uint64_t seed) {
  INFO(gemm_dense::kernel_name(kernel) << ": " << gemm_test::describe(s));
  CAPTURE(seed);
  const size_t a_size = size_t(s.M) * s.K, b_size = size_t(s.K) * s.N, c_size = size_t(s.M) * s.N;
  const std::vector<float> A = random_vector(a_size, seed, -1.0f, 1.0f);
  const std::vector<float> B = random_vector(b_size, seed + 1, -1.0f, 1.0f);
  const std::vector<double> ref = gemm_test::reference_product(A, false, B, false, s);

  DeviceBuffer<float> dA = gemm_test::upload_guarded(A), dB = gemm_test::upload_guarded(B);
  DeviceBuffer<float> dC(c_size + gemm_test::kGuard);
  dC.poison();
  gemm_dense::matmul(kernel, dA.data(), dB.data(), dC.data(), s.M, s.N, s.K);
  const std::vector<float> got = gemm_test::download_checked(dC, c_size);
  const double tol = gemm_test::sum_tolerance(s.K);  // why: see sum_tolerance
  REQUIRE_ALL_CLOSE(got, ref, tol, tol);
}

void check_shapes(MatmulKernel kernel, const std::vector<Shape>& shapes, uint64_t salt) {
  for (const Shape& s : shapes) check_matmul(kernel, s, gemm_test::seed_for(s, salt));
}

// K = 0: C is an empty sum, all zeros (and must be written). M or N = 0: nothing to do, no
// error. A negative size: a course::Error, no launch.
void check_degenerate_sizes(MatmulKernel kernel) {
  INFO(gemm_dense::kernel_name(kernel));
  DeviceBuffer<float> dC(3 * 5 + gemm_test::kGuard);
  dC.poison();
  DeviceBuffer<float> dummy(1);
  gemm_dense::matmul(kernel, dummy.data(), dummy.data(), dC.data(), 3, 5, 0);
  const std::vector<float> got = gemm_test::download_checked(dC, 3 * 5);
  REQUIRE_ALL_CLOSE(got, std::vector<float>(15, 0.0f), 0.0, 0.0);  // exactly 0: nothing is added

  REQUIRE_NOTHROW(gemm_dense::matmul(kernel, nullptr, nullptr, nullptr, 0, 5, 7));
  REQUIRE_NOTHROW(gemm_dense::matmul(kernel, nullptr, nullptr, nullptr, 4, 0, 7));
  REQUIRE_THROWS_AS(gemm_dense::matmul(kernel, nullptr, nullptr, nullptr, -1, 5, 7), course::Error);
  REQUIRE_THROWS_AS(gemm_dense::matmul(kernel, nullptr, nullptr, nullptr, 4, 5, -2), course::Error);
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

TEST_CASE("naive matmul matches the double product on odd shapes", "[04.1]") {
  check_shapes(MatmulKernel::naive, gemm_test::odd_shapes(), 41);
  check_shapes(MatmulKernel::naive, gemm_test::random_shapes(4101, 4), 42);
}

TEST_CASE("naive matmul: tile-sized and long-K shapes", "[04.1]") {
  check_shapes(MatmulKernel::naive, gemm_test::float4_shapes(), 43);
  check_shapes(MatmulKernel::naive, gemm_test::long_k_shapes(), 44);
}

TEST_CASE("naive matmul: K = 0 writes zeros, empty outputs and bad sizes", "[04.1]") {
  check_degenerate_sizes(MatmulKernel::naive);
}

TEST_CASE("tiled matmul matches the double product on odd shapes", "[04.2]") {
  check_shapes(MatmulKernel::tiled, gemm_test::odd_shapes(), 51);
  check_shapes(MatmulKernel::tiled, gemm_test::random_shapes(4201, 4), 52);
}

TEST_CASE("tiled matmul: tile-sized and long-K shapes", "[04.2]") {
  // 32, 64, 96 ... are the tiled kernel's exact multiples; 31, 33, 63, 65 one short and past.
  check_shapes(MatmulKernel::tiled, {{32, 32, 32}, {64, 96, 32}, {31, 33, 63}, {65, 31, 33}}, 53);
  check_shapes(MatmulKernel::tiled, gemm_test::float4_shapes(), 54);
  check_shapes(MatmulKernel::tiled, gemm_test::long_k_shapes(), 55);
}

TEST_CASE("tiled matmul: K = 0 writes zeros, empty outputs and bad sizes", "[04.2]") {
  check_degenerate_sizes(MatmulKernel::tiled);
}

TEST_CASE("register-blocked matmul matches the double product on odd shapes (scalar path)", "[04.3]") {
  check_shapes(MatmulKernel::register_blocked, gemm_test::odd_shapes(), 61);
  check_shapes(MatmulKernel::register_blocked, gemm_test::random_shapes(4301, 4), 62);
}

TEST_CASE("register-blocked matmul: float4 path, exact tiles and edge tiles", "[04.3]") {
  check_shapes(MatmulKernel::register_blocked, gemm_test::float4_shapes(), 63);
  // Two and a half block tiles in every direction, K a multiple of 16 and not.
  check_shapes(MatmulKernel::register_blocked, {{320, 320, 64}, {320, 328, 68}, {260, 512, 200}}, 64);
}

TEST_CASE("register-blocked matmul: long K (split-K on a GPU with many SMs)", "[04.3]") {
  check_shapes(MatmulKernel::register_blocked, gemm_test::long_k_shapes(), 65);
}

TEST_CASE("register-blocked matmul: operands not 16-byte aligned take the scalar path", "[04.3]") {
  // Sizes that allow float4, but every matrix starts one float into its buffer: a kernel that
  // used float4 anyway would fault (misaligned address) or read the wrong elements.
  const Shape s{132, 68, 40};
  const uint64_t seed = 4311;
  CAPTURE(seed);
  const size_t a_size = size_t(s.M) * s.K, b_size = size_t(s.K) * s.N, c_size = size_t(s.M) * s.N;
  std::vector<float> A = random_vector(a_size + 1, seed), B = random_vector(b_size + 1, seed + 1);
  const std::vector<double> ref = gemm_test::reference_product(std::vector<float>(A.begin() + 1, A.end()), false,
                                                               std::vector<float>(B.begin() + 1, B.end()), false, s);
  DeviceBuffer<float> dA = gemm_test::upload_guarded(A), dB = gemm_test::upload_guarded(B);
  DeviceBuffer<float> dC(c_size + 1 + gemm_test::kGuard);
  dC.poison();
  gemm_dense::matmul(MatmulKernel::register_blocked, dA.data() + 1, dB.data() + 1, dC.data() + 1, s.M, s.N, s.K);
  std::vector<float> got = gemm_test::download_checked(dC, c_size + 1);
  REQUIRE(std::isnan(got[0]));  // the float before C is not written either
  got.erase(got.begin());
  const double tol = gemm_test::sum_tolerance(s.K);
  REQUIRE_ALL_CLOSE(got, ref, tol, tol);
}

TEST_CASE("register-blocked matmul: K = 0 writes zeros, empty outputs and bad sizes", "[04.3]") {
  check_degenerate_sizes(MatmulKernel::register_blocked);
}

TEST_CASE("register-blocked matmul: identity times B is exactly B", "[04.3]") {
  // A hand-checkable case: I (M x M) * B = B exactly (each output is one product with 1 plus
  // zeros), for a B that is not a tile multiple.
  const int M = 131, N = 75;
  std::vector<float> I(size_t(M) * M, 0.0f);
  for (int i = 0; i < M; ++i) I[size_t(i) * M + i] = 1.0f;
  const std::vector<float> B = random_vector(size_t(M) * N, 4321);
  DeviceBuffer<float> dI = gemm_test::upload_guarded(I), dB = gemm_test::upload_guarded(B);
  DeviceBuffer<float> dC(B.size() + gemm_test::kGuard);
  dC.poison();
  gemm_dense::matmul(MatmulKernel::register_blocked, dI.data(), dB.data(), dC.data(), M, N, M);
  const std::vector<float> got = gemm_test::download_checked(dC, B.size());
  REQUIRE_ALL_CLOSE(got, B, 0.0, 0.0);  // exact: x * 1 + 0 + ... + 0 rounds to x
}
