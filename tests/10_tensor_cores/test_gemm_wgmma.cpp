// Lesson 10, step 10.8 on a Hopper GPU: the wgmma GEMMs against a GEMM in double of the same
// inputs (gemm_check.hpp), C poisoned before every call; and the launchers' refusals.
#include <cmath>
#include <cstdint>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "gemm_check.hpp"
#include "tensor_cores.hpp"

using gemm_check::Size;

namespace {

// Rows of whole 16-byte units (K, and for BF16 N, multiples of 8), edges inside the 128 x 256
// tiles, K not a multiple of a stage (64 BF16, 32 floats), more stages of K than the 4 buffers
// (the producer waits for the consumers), one row, and tiles of the grid in both directions.
std::vector<Size> wgmma_sizes() {
  return {{1, 8, 8}, {130, 264, 72}, {256, 512, 520}, {200, 136, 1000}, {65, 296, 40}, {384, 256, 256}};
}

}  // namespace

TEST_CASE("gemm_wgmma_bf16 equals A*B within BF16's bound, tails in M, N and K", "[10.8]") {
  gemm_check::check_bf16(gemm_check::on_default_stream(tensor_cores::gemm_wgmma_bf16), wgmma_sizes(), 800);
}

TEST_CASE("gemm_wgmma_tf32 equals A*B within TF32's bound, N of any size", "[10.8]") {
  std::vector<Size> cases = wgmma_sizes();
  cases.push_back({17, 33, 12});  // TF32 allows any N (B is copied transposed) and K a multiple of 4
  cases.push_back({65, 129, 44});
  const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) {
    course::DeviceBuffer<float> workspace(tensor_cores::gemm_wgmma_tf32_workspace_floats(N, K));
    workspace.poison();
    tensor_cores::gemm_wgmma_tf32(A, B, C, M, N, K, workspace.data());
    CUDA_CHECK(cudaDeviceSynchronize());  // before the workspace is freed
  };
  // A is read by the Tensor Cores without rounding (its low 13 bits dropped: within 2^-10 of
  // itself); B^T is rounded to nearest by the transposing kernel (2^-11).
  gemm_check::check_tf32(gemm, cases, 900, 0x1p-10, 0x1p-11);
}

TEST_CASE("wgmma GEMMs refuse what the copy engine cannot describe, before any work", "[10.8]") {
  REQUIRE(tensor_cores::gemm_wgmma_problem(128, 128, 64, 2).empty());
  REQUIRE(tensor_cores::gemm_wgmma_problem(128, 128, 12, 2).find("multiple of 8") != std::string::npos);
  REQUIRE(tensor_cores::gemm_wgmma_problem(128, 12, 64, 2).find("multiple of 8") != std::string::npos);
  REQUIRE(tensor_cores::gemm_wgmma_problem(128, 12, 64, 4).empty());
  REQUIRE(tensor_cores::gemm_wgmma_problem(128, 128, 6, 4).find("multiple of 4") != std::string::npos);
  course::DeviceBuffer<uint16_t> a(64), b(64);
  course::DeviceBuffer<float> c(64), fa(64), fb(64);
  c.poison();
  REQUIRE_THROWS_AS(tensor_cores::gemm_wgmma_bf16(a.data(), b.data(), c.data(), 4, 4, 4), course::Error);
  REQUIRE_THROWS_AS(tensor_cores::gemm_wgmma_bf16(a.data(), b.data(), c.data(), 0, 8, 8), course::Error);
  REQUIRE_THROWS_AS(tensor_cores::gemm_wgmma_tf32(fa.data(), fb.data(), c.data(), 4, 4, 4, nullptr), course::Error);
  REQUIRE_THROWS_AS(tensor_cores::gemm_wgmma_bf16(a.data() + 1, b.data(), c.data(), 8, 8, 8), course::Error);
  // Nothing ran: C is still poisoned.
  const std::vector<float> host = c.to_host();
  for (float v : host) REQUIRE(std::isnan(v));
}
