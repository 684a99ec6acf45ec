// Step 04.7: the transposed products backward passes need, through the public API (the
// double-buffered kernel of 04.6 underneath), against the product in double:
//   matmul_a_bt: C = A * B^T + beta*C, A [M x K], B [N x K]
//   matmul_at_b: C = A^T * B + beta*C, A [K x M], B [K x N]
// beta = 0 must overwrite a C full of NaN (and never read it); beta = 1 (and 0.5) must add to
// the known values C held.
#include <cstdint>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"

using gemm_test::Product;
using gemm_test::Shape;

namespace {

const char* name(Product p) { return p == Product::a_bt ? "matmul_a_bt" : "matmul_at_b"; }

void call(Product p, const float* A, const float* B, float* C, const Shape& s, float beta) {
  if (p == Product::a_bt)
    gemm_dense::matmul_a_bt(A, B, C, s.M, s.N, s.K, beta);
  else
    gemm_dense::matmul_at_b(A, B, C, s.M, s.N, s.K, beta);
}

// offset > 0 starts every matrix that many floats into its buffer (unaligned for float4).
void check_all(Product p, const std::vector<Shape>& shapes, float beta, uint64_t salt, size_t offset = 0) {
  for (const Shape& s : shapes) {
    const auto run = [&](const float* A, const float* B, float* C) { call(p, A, B, C, s, beta); };
    gemm_test::check_product(name(p), run, p, s, beta, gemm_test::seed_for(s, salt), offset);
  }
}

}  // namespace

TEST_CASE("A * B^T and A^T * B match the double product on odd shapes, beta = 0", "[04.7]") {
  for (Product p : {Product::a_bt, Product::at_b}) {
    check_all(p, gemm_test::odd_shapes(), 0.0f, 71);
    check_all(p, gemm_test::random_shapes(4701, 3), 0.0f, 72);
  }
}

TEST_CASE("A * B^T and A^T * B accumulate into C: beta = 1 and beta = 0.5", "[04.7]") {
  for (Product p : {Product::a_bt, Product::at_b})
    for (float beta : {1.0f, 0.5f}) {
      check_all(p, gemm_test::odd_shapes(), beta, 73);
      check_all(p, gemm_test::float4_shapes(), beta, 74);
    }
}

TEST_CASE("A * B^T and A^T * B: float4 shapes, and the same shapes unaligned", "[04.7]") {
  for (Product p : {Product::a_bt, Product::at_b}) {
    check_all(p, gemm_test::float4_shapes(), 0.0f, 75);
    check_all(p, gemm_test::float4_shapes(), 1.0f, 76, 1);
  }
}

TEST_CASE("A * B^T and A^T * B: long K (split-K), beta = 0 and 1", "[04.7]") {
  // The conv weight gradient of lessons 07/08: few output tiles, a very long K (see 04.6's test).
  const std::vector<Shape> shapes = {{64, 100, 25088}, {64, 200, 6000}, {5, 37, 4099}, {33, 25, 2000}};
  for (Product p : {Product::a_bt, Product::at_b})
    for (float beta : {0.0f, 1.0f}) check_all(p, shapes, beta, 77);
}

TEST_CASE("A * B^T and A^T * B: K = 0 gives beta * C; empty outputs; bad sizes throw", "[04.7]") {
  for (Product p : {Product::a_bt, Product::at_b}) {
    INFO(name(p));
    check_all(p, {{3, 5, 0}}, 0.0f, 78);  // all zeros (written over the NaN)
    check_all(p, {{3, 5, 0}}, 1.0f, 79);  // C unchanged
    REQUIRE_NOTHROW(call(p, nullptr, nullptr, nullptr, {0, 4, 9}, 1.0f));
    REQUIRE_NOTHROW(call(p, nullptr, nullptr, nullptr, {4, 0, 9}, 1.0f));
    REQUIRE_THROWS_AS(call(p, nullptr, nullptr, nullptr, {4, -1, 9}, 1.0f), course::Error);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}
