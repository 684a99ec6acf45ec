// Step 04.4: the transposed products backward passes need, against the product in double:
//   matmul_a_bt: C = A * B^T + beta*C, A [M x K], B [N x K]
//   matmul_at_b: C = A^T * B + beta*C, A [K x M], B [K x N]
// beta = 0 must overwrite a C full of NaN (and never read it); beta = 1 (and 0.5) must add to
// the known values C held.
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using gemm_test::Shape;

namespace {

enum class Product { a_bt, at_b };

const char* name(Product p) { return p == Product::a_bt ? "matmul_a_bt" : "matmul_at_b"; }

// offset > 0 starts every matrix that many floats into its buffer (unaligned for float4).
void check_product(Product product, const Shape& s, float beta, uint64_t seed, size_t offset = 0) {
  INFO(name(product) << ": " << gemm_test::describe(s) << ", beta = " << beta << ", offset = " << offset);
  CAPTURE(seed);
  const size_t a_size = size_t(s.M) * s.K, b_size = size_t(s.K) * s.N, c_size = size_t(s.M) * s.N;
  // The same sizes for both products; only the layout in memory differs.
  const std::vector<float> A = random_vector(a_size, seed, -1.0f, 1.0f);
  const std::vector<float> B = random_vector(b_size, seed + 1, -1.0f, 1.0f);
  const std::vector<float> C0 = random_vector(c_size, seed + 2, -1.0f, 1.0f);
  const bool trans_a = product == Product::at_b, trans_b = product == Product::a_bt;
  const std::vector<double> ref = gemm_test::reference_product(A, trans_a, B, trans_b, s, &C0, beta);

  auto with_offset = [offset](const std::vector<float>& v) {
    std::vector<float> padded(offset, 7.0f);  // finite junk before the matrix: must not be read
    padded.insert(padded.end(), v.begin(), v.end());
    return padded;
  };
  DeviceBuffer<float> dA = gemm_test::upload_guarded(with_offset(A));
  DeviceBuffer<float> dB = gemm_test::upload_guarded(with_offset(B));
  DeviceBuffer<float> dC(offset + c_size + gemm_test::kGuard);
  dC.poison();  // NaN everywhere; for beta != 0 the matrix itself then gets its known values
  if (beta != 0.0f) dC.upload(with_offset(C0));
  float* C = dC.data() + offset;
  if (product == Product::a_bt)
    gemm_dense::matmul_a_bt(dA.data() + offset, dB.data() + offset, C, s.M, s.N, s.K, beta);
  else
    gemm_dense::matmul_at_b(dA.data() + offset, dB.data() + offset, C, s.M, s.N, s.K, beta);
  std::vector<float> got = gemm_test::download_checked(dC, offset + c_size);
  got.erase(got.begin(), got.begin() + long(offset));
  // Why: see sum_tolerance; beta * C adds one more rounding of a value <= 1, inside the margin.
  const double tol = gemm_test::sum_tolerance(s.K);
  REQUIRE_ALL_CLOSE(got, ref, tol, tol);
}

void check_all(Product product, const std::vector<Shape>& shapes, float beta, uint64_t salt) {
  for (const Shape& s : shapes) check_product(product, s, beta, gemm_test::seed_for(s, salt));
}

}  // namespace

TEST_CASE("A * B^T and A^T * B match the double product on odd shapes, beta = 0", "[04.4]") {
  for (Product p : {Product::a_bt, Product::at_b}) {
    check_all(p, gemm_test::odd_shapes(), 0.0f, 71);
    check_all(p, gemm_test::random_shapes(4401, 3), 0.0f, 72);
  }
}

TEST_CASE("A * B^T and A^T * B accumulate into C: beta = 1 and beta = 0.5", "[04.4]") {
  for (Product p : {Product::a_bt, Product::at_b})
    for (float beta : {1.0f, 0.5f}) {
      check_all(p, gemm_test::odd_shapes(), beta, 73);
      check_all(p, gemm_test::float4_shapes(), beta, 74);
    }
}

TEST_CASE("A * B^T and A^T * B: float4 shapes, and the same shapes unaligned", "[04.4]") {
  for (Product p : {Product::a_bt, Product::at_b}) {
    check_all(p, gemm_test::float4_shapes(), 0.0f, 75);
    for (const Shape& s : gemm_test::float4_shapes()) check_product(p, s, 1.0f, gemm_test::seed_for(s, 76), 1);
  }
}

TEST_CASE("A * B^T and A^T * B: long K (split-K), beta = 0 and 1", "[04.4]") {
  // The conv weight gradient of lesson 07/08 is A * B^T with M = 64 output channels and
  // K = batch * positions (25088 at batch 128): few output tiles, a very long K. 64 x 100 keeps
  // the double reference quick; the split is the same kind.
  const std::vector<Shape> shapes = {{64, 100, 25088}, {64, 200, 6000}, {5, 37, 4099}, {33, 25, 2000}};
  for (Product p : {Product::a_bt, Product::at_b})
    for (float beta : {0.0f, 1.0f}) check_all(p, shapes, beta, 77);
}

TEST_CASE("A * B^T and A^T * B: K = 0 gives beta * C; empty outputs; bad sizes throw", "[04.4]") {
  for (Product p : {Product::a_bt, Product::at_b}) {
    INFO(name(p));
    check_product(p, {3, 5, 0}, 0.0f, 78);  // all zeros (written over the NaN)
    check_product(p, {3, 5, 0}, 1.0f, 79);  // C unchanged
    auto call = [p](int M, int N, int K) {
      if (p == Product::a_bt)
        gemm_dense::matmul_a_bt(nullptr, nullptr, nullptr, M, N, K, 1.0f);
      else
        gemm_dense::matmul_at_b(nullptr, nullptr, nullptr, M, N, K, 1.0f);
    };
    REQUIRE_NOTHROW(call(0, 4, 9));
    REQUIRE_NOTHROW(call(4, 0, 9));
    REQUIRE_THROWS_AS(call(4, -1, 9), course::Error);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}
