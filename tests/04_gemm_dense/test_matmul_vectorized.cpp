// Steps 04.5 and 04.6: the vectorised and the double-buffered rungs, against the product in
// double. Both read each operand in its layout, so each is checked on all three products
// (A*B, A*B^T, A^T*B) through its own launcher (matmul_launchers.hpp), with beta = 0, 1 and 0.5,
// on odd shapes (scalar path), multiples of 4 (float4 path), operands that are not 16-byte
// aligned, long K (split-K in 04.6) and K = 0.
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"
#include "matmul_launchers.hpp"

using course::DeviceBuffer;
using gemm_dense::MatmulKernel;
using gemm_dense::detail::Layout;
using gemm_test::Product;
using gemm_test::Shape;

namespace {

constexpr Product kProducts[] = {Product::ab, Product::a_bt, Product::at_b};

// One product through one rung. A*B with beta = 0 goes through gemm_dense::matmul (the path
// lessons 07 and 08 take); everything else through the rung's launcher, which reads A and B in
// the layouts of the product: A*B^T both k-contiguous, A^T*B both p-contiguous.
void run_rung(MatmulKernel kernel, Product product, const float* A, const float* B, float* C, const Shape& s,
              float beta) {
  if (product == Product::ab && beta == 0.0f) {
    gemm_dense::matmul(kernel, A, B, C, s.M, s.N, s.K);
    return;
  }
  const Layout a = product == Product::at_b ? Layout::p_contiguous : Layout::k_contiguous;
  const Layout b = product == Product::a_bt ? Layout::k_contiguous : Layout::p_contiguous;
  const char* what = gemm_test::product_name(product);
  if (kernel == MatmulKernel::vectorized)
    gemm_dense::detail::matmul_vectorized(what, a, b, A, B, C, s.M, s.N, s.K, beta);
  else
    gemm_dense::detail::matmul_double_buffered(what, a, b, A, B, C, s.M, s.N, s.K, beta);
}

void check(MatmulKernel kernel, Product product, const std::vector<Shape>& shapes, float beta, uint64_t salt,
           size_t offset = 0) {
  for (const Shape& s : shapes) {
    const auto run = [&](const float* A, const float* B, float* C) { run_rung(kernel, product, A, B, C, s, beta); };
    gemm_test::check_product(gemm_dense::kernel_name(kernel), run, product, s, beta, gemm_test::seed_for(s, salt),
                             offset);
  }
}

// Shapes a few block tiles large: two and a half tiles in every direction, K a multiple of 16
// and not; every size a multiple of 4, so float4 loads and stores are allowed.
std::vector<Shape> multi_tile_shapes() { return {{320, 320, 64}, {320, 328, 68}, {260, 512, 200}}; }

void odd_shapes_all_products(MatmulKernel kernel, uint64_t salt) {
  for (Product p : kProducts) {
    check(kernel, p, gemm_test::odd_shapes(), 0.0f, salt);
    check(kernel, p, gemm_test::random_shapes(salt * 100 + 1, 3), 0.0f, salt + 1);
  }
}

void float4_shapes_all_products(MatmulKernel kernel, uint64_t salt) {
  for (Product p : kProducts) {
    check(kernel, p, gemm_test::float4_shapes(), 0.0f, salt);
    check(kernel, p, multi_tile_shapes(), 0.0f, salt + 1);
  }
}

// Sizes that allow float4, but every matrix starts one float into its buffer: a kernel that
// used float4 anyway would fault (misaligned address) or read the wrong elements.
void unaligned_all_products(MatmulKernel kernel, uint64_t salt) {
  for (Product p : kProducts)
    for (float beta : {0.0f, 1.0f}) check(kernel, p, {{132, 68, 40}, {128, 128, 128}, {4, 132, 4}}, beta, salt, 1);
}

// beta = 1 and 0.5 add beta * C to the product (the known values C held); beta = 0 overwrote a C
// full of NaN in every case above.
void beta_all_products(MatmulKernel kernel, uint64_t salt) {
  for (Product p : kProducts)
    for (float beta : {1.0f, 0.5f}) {
      check(kernel, p, gemm_test::odd_shapes(), beta, salt);
      check(kernel, p, gemm_test::float4_shapes(), beta, salt + 1);
    }
}

// K = 0: C = beta * C (zeros for beta = 0, written over the NaN). Empty outputs: nothing, no
// error. Negative sizes: course::Error.
void degenerate_all_products(MatmulKernel kernel, uint64_t salt) {
  for (Product p : kProducts) {
    check(kernel, p, {{3, 5, 0}}, 0.0f, salt);
    check(kernel, p, {{3, 5, 0}}, 1.0f, salt + 1);
    const Shape empty_m{0, 4, 9}, empty_n{4, 0, 9}, negative{4, -1, 9};
    REQUIRE_NOTHROW(run_rung(kernel, p, nullptr, nullptr, nullptr, empty_m, 1.0f));
    REQUIRE_NOTHROW(run_rung(kernel, p, nullptr, nullptr, nullptr, empty_n, 1.0f));
    REQUIRE_THROWS_AS(run_rung(kernel, p, nullptr, nullptr, nullptr, negative, 1.0f), course::Error);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

// The conv weight gradient of lessons 07/08 is A * B^T with M = 64 output channels and
// K = batch * positions (25088 at batch 128): few output tiles, a very long K. 64 x 100 keeps the
// double reference quick; on a GPU with more SMs than output tiles the double-buffered launcher
// splits K into slices (split-K) for these.
std::vector<Shape> long_k_shapes() {
  std::vector<Shape> shapes = gemm_test::long_k_shapes();
  shapes.push_back({64, 100, 25088});
  shapes.push_back({33, 25, 2000});
  return shapes;
}

}  // namespace

TEST_CASE("vectorized matmul: odd shapes, all three products (scalar path)", "[04.5]") {
  odd_shapes_all_products(MatmulKernel::vectorized, 81);
}

TEST_CASE("vectorized matmul: float4 path, exact tiles and edge tiles, all three products", "[04.5]") {
  float4_shapes_all_products(MatmulKernel::vectorized, 83);
}

TEST_CASE("vectorized matmul: operands not 16-byte aligned take the scalar path", "[04.5]") {
  unaligned_all_products(MatmulKernel::vectorized, 85);
}

TEST_CASE("vectorized matmul: beta = 1 and beta = 0.5 accumulate into C", "[04.5]") {
  beta_all_products(MatmulKernel::vectorized, 86);
}

TEST_CASE("vectorized matmul: long K", "[04.5]") {
  for (Product p : kProducts) check(MatmulKernel::vectorized, p, gemm_test::long_k_shapes(), 0.0f, 88);
}

TEST_CASE("vectorized matmul: K = 0 gives beta * C; empty outputs; bad sizes throw", "[04.5]") {
  degenerate_all_products(MatmulKernel::vectorized, 89);
}

TEST_CASE("vectorized matmul: identity times B is exactly B", "[04.5]") { gemm_test::check_identity(MatmulKernel::vectorized); }

TEST_CASE("double-buffered matmul: odd shapes, all three products (scalar path)", "[04.6]") {
  odd_shapes_all_products(MatmulKernel::double_buffered, 91);
}

TEST_CASE("double-buffered matmul: float4 path, exact tiles and edge tiles, all three products", "[04.6]") {
  float4_shapes_all_products(MatmulKernel::double_buffered, 93);
}

TEST_CASE("double-buffered matmul: operands not 16-byte aligned take the scalar path", "[04.6]") {
  unaligned_all_products(MatmulKernel::double_buffered, 95);
}

TEST_CASE("double-buffered matmul: beta = 1 and beta = 0.5 accumulate into C", "[04.6]") {
  beta_all_products(MatmulKernel::double_buffered, 96);
}

TEST_CASE("double-buffered matmul: long K (split-K on a GPU with many SMs), beta = 0 and 1", "[04.6]") {
  for (Product p : kProducts)
    for (float beta : {0.0f, 1.0f}) check(MatmulKernel::double_buffered, p, long_k_shapes(), beta, 97);
}

TEST_CASE("double-buffered matmul: K = 0 gives beta * C; empty outputs; bad sizes throw", "[04.6]") {
  degenerate_all_products(MatmulKernel::double_buffered, 99);
}

TEST_CASE("double-buffered matmul: identity times B is exactly B", "[04.6]") {
  gemm_test::check_identity(MatmulKernel::double_buffered);
}
