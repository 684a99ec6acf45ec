// Lesson 10 on the GPU: 10.1's conversion kernels bit for bit against the test's reference, and
// the Tensor Core GEMMs of 10.2-10.4 against a GEMM in double of the same inputs, within a
// bound derived from the formats (see bound_factor), on odd sizes, C poisoned (NaN) before every call.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "format_reference.hpp"
#include "gemm_check.hpp"
#include "tensor_cores.hpp"

using course::DeviceBuffer;
using course::test::bits_float;
using course::test::float_bits;
using gemm_check::Size;

namespace {

// Edges of every tile: 1, below and above the 64 x 64 block and the 16-deep stage, long K.
std::vector<Size> sizes() {
  return {{1, 1, 1}, {17, 33, 5}, {64, 64, 16}, {65, 129, 31}, {128, 96, 200}, {300, 17, 513}, {33, 300, 8},
          {3, 70, 1000}};
}

void check_tf32(void (*gemm)(const float*, const float*, float*, int, int, int, cudaStream_t),
                const std::vector<Size>& cases, uint64_t seed) {
  gemm_check::check_tf32(gemm_check::on_default_stream(gemm), cases, seed);
}
void check_bf16(void (*gemm)(const uint16_t*, const uint16_t*, float*, int, int, int, cudaStream_t),
                const std::vector<Size>& cases, uint64_t seed) {
  gemm_check::check_bf16(gemm_check::on_default_stream(gemm), cases, seed);
}

}  // namespace

TEST_CASE("to_bf16_gpu, to_tf32_gpu and to_fp16_gpu equal the host reference bit for bit", "[10.1]") {
  const size_t n = 1 << 20;
  std::vector<float> x(n);
  course::Rng rng(202);
  for (float& v : x) {
    v = bits_float(uint32_t(rng.uniform01() * 4294967296.0));
    if (std::isnan(v)) v = 1.0f;  // NaNs: checked on the host
  }
  DeviceBuffer<float> dx(x), dt(n);
  DeviceBuffer<uint16_t> db(n), dh(n);
  dt.poison();
  db.poison();
  dh.poison();
  tensor_cores::to_bf16_gpu(dx.data(), db.data(), n);
  tensor_cores::to_tf32_gpu(dx.data(), dt.data(), n);
  tensor_cores::to_fp16_gpu(dx.data(), dh.data(), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<uint16_t> b = db.to_host(), h = dh.to_host();
  const std::vector<float> t = dt.to_host();
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    wrong += b[i] != course::test::reference_bf16(x[i]) ||
             float_bits(t[i]) != float_bits(course::test::reference_tf32(x[i])) ||
             h[i] != course::test::reference_fp16(x[i]);
  INFO(wrong << " of " << n << " elements differ from the reference");
  REQUIRE(wrong == 0);
}

TEST_CASE("gemm_wmma_tf32 equals A*B within TF32's bound on odd sizes", "[10.2]") {
  check_tf32(tensor_cores::gemm_wmma_tf32, sizes(), 300);
}

TEST_CASE("gemm_wmma_bf16 equals A*B within BF16's bound on odd sizes", "[10.2]") {
  check_bf16(tensor_cores::gemm_wmma_bf16, sizes(), 400);
}

// 10.3's sizes: rows whose starts are 16-byte aligned (K and N multiples of 8: the asynchronous
// copies) with edges inside the 128 x 128 tiles and K not a multiple of a stage, more tiles of K
// than stages, and odd sizes (element-by-element loads).
std::vector<Size> pipelined_sizes() {
  return {{130, 72, 64}, {256, 264, 520}, {1, 8, 8}, {8, 16, 1000}, {200, 136, 48}, {65, 129, 31}, {17, 33, 5},
          {300, 17, 513}};
}

TEST_CASE("gemm_pipelined_tf32 equals A*B within TF32's bound, aligned and odd sizes", "[10.3]") {
  check_tf32(tensor_cores::gemm_pipelined_tf32, pipelined_sizes(), 500);
}

TEST_CASE("gemm_pipelined_bf16 equals A*B within BF16's bound, aligned and odd sizes", "[10.3]") {
  check_bf16(tensor_cores::gemm_pipelined_bf16, pipelined_sizes(), 600);
}

TEST_CASE("pipelined GEMMs: sizes below 1 throw before any work", "[10.3]") {
  REQUIRE_THROWS_AS(tensor_cores::gemm_pipelined_tf32(nullptr, nullptr, nullptr, 4, 0, 4), course::Error);
  REQUIRE_THROWS_AS(tensor_cores::gemm_pipelined_bf16(nullptr, nullptr, nullptr, -2, 4, 4), course::Error);
}

// 10.4's sizes: edges inside the 128 x 256 tiles, more tiles of K than its 4 stages, odd sizes.
std::vector<Size> mma_sizes() {
  return {{130, 264, 64}, {256, 512, 520}, {1, 8, 8}, {8, 16, 1000}, {200, 136, 48}, {65, 129, 31}, {17, 33, 5},
          {300, 17, 513}};
}

TEST_CASE("gemm_mma_bf16 equals A*B within BF16's bound, aligned and odd sizes", "[10.4]") {
  check_bf16(tensor_cores::gemm_mma_bf16, mma_sizes(), 700);
}

TEST_CASE("gemm_mma_bf16: sizes below 1 throw before any work", "[10.4]") {
  REQUIRE_THROWS_AS(tensor_cores::gemm_mma_bf16(nullptr, nullptr, nullptr, 4, 4, 0), course::Error);
}

TEST_CASE("WMMA GEMMs: sizes below 1 throw before any work", "[10.2]") {
  REQUIRE_THROWS_AS(tensor_cores::gemm_wmma_tf32(nullptr, nullptr, nullptr, 0, 4, 4), course::Error);
  REQUIRE_THROWS_AS(tensor_cores::gemm_wmma_bf16(nullptr, nullptr, nullptr, 4, 4, -1), course::Error);
}
