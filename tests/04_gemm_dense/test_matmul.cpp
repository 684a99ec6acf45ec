// Steps 04.1-04.4: the rungs of the matmul ladder that compute C = A * B only (naive, tiled,
// 1-D tile, 2-D tile), through gemm_dense::matmul, against the product in double. Every rung gets
// sizes of 1, odd sizes, one past and one short of its tiles, and long K.
#include <cstdint>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"

using course::DeviceBuffer;
using gemm_dense::MatmulKernel;
using gemm_test::Shape;

namespace {

// C = A * B through one rung; C is poisoned (NaN) and the inputs are followed by NaN
// (gemm_test::check_product says why).
void check_shapes(MatmulKernel kernel, const std::vector<Shape>& shapes, uint64_t salt) {
  for (const Shape& s : shapes) {
    const auto run = [&](const float* A, const float* B, float* C) {
      gemm_dense::matmul(kernel, A, B, C, s.M, s.N, s.K);
    };
    gemm_test::check_product(gemm_dense::kernel_name(kernel), run, gemm_test::Product::ab, s, 0.0f,
                             gemm_test::seed_for(s, salt));
  }
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

TEST_CASE("1-D tile matmul matches the double product on odd shapes", "[04.3]") {
  check_shapes(MatmulKernel::tile_1d, gemm_test::odd_shapes(), 61);
  check_shapes(MatmulKernel::tile_1d, gemm_test::random_shapes(4301, 4), 62);
}

TEST_CASE("1-D tile matmul: tile-sized and long-K shapes", "[04.3]") {
  // The block tile is 64 x 64, 8 deep: exact multiples, then one short and one past in each size.
  check_shapes(MatmulKernel::tile_1d, {{64, 64, 8}, {128, 192, 64}, {63, 65, 7}, {65, 63, 9}, {127, 129, 257}}, 63);
  check_shapes(MatmulKernel::tile_1d, gemm_test::float4_shapes(), 64);
  check_shapes(MatmulKernel::tile_1d, gemm_test::long_k_shapes(), 65);
}

TEST_CASE("1-D tile matmul: K = 0 writes zeros, empty outputs and bad sizes", "[04.3]") {
  check_degenerate_sizes(MatmulKernel::tile_1d);
}

TEST_CASE("1-D tile matmul: identity times B is exactly B", "[04.3]") { gemm_test::check_identity(MatmulKernel::tile_1d); }

TEST_CASE("2-D tile matmul matches the double product on odd shapes", "[04.4]") {
  check_shapes(MatmulKernel::tile_2d, gemm_test::odd_shapes(), 71);
  check_shapes(MatmulKernel::tile_2d, gemm_test::random_shapes(4401, 4), 72);
}

TEST_CASE("2-D tile matmul: tile-sized and long-K shapes", "[04.4]") {
  // The block tile is 128 x 128, 16 deep: exact multiples, then one short and one past.
  check_shapes(MatmulKernel::tile_2d, {{128, 128, 16}, {256, 384, 48}, {127, 129, 15}, {129, 127, 17}}, 73);
  // Two and a half block tiles in every direction.
  check_shapes(MatmulKernel::tile_2d, {{320, 320, 64}, {320, 328, 68}, {260, 512, 200}}, 74);
  check_shapes(MatmulKernel::tile_2d, gemm_test::float4_shapes(), 75);
  check_shapes(MatmulKernel::tile_2d, gemm_test::long_k_shapes(), 76);
}

TEST_CASE("2-D tile matmul: K = 0 writes zeros, empty outputs and bad sizes", "[04.4]") {
  check_degenerate_sizes(MatmulKernel::tile_2d);
}

TEST_CASE("2-D tile matmul: identity times B is exactly B", "[04.4]") { gemm_test::check_identity(MatmulKernel::tile_2d); }
