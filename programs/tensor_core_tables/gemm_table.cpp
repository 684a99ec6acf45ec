// Lesson 10's tables (a program above the lessons): the GEMM table of the program.
#include "gemm_table.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "gemm_dense.hpp"
#include "tensor_cores.hpp"

namespace lesson10 {

namespace {

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw course::Error(std::string("cuBLAS: ") + what + " failed (status " + std::to_string(int(s)) + ")");
}

// cuBLAS is column-major: C = A * B (row-major) is C^T = B^T * A^T, i.e. the column-major product
// of B (N x K, ld N) and A (K x M, ld K) into C (N x M, ld N).
void cublas_gemm(cublasHandle_t h, const void* A, const void* B, float* C, int M, int N, int K, cudaDataType in,
                 cublasComputeType_t compute) {
  const float one = 1.0f, zero = 0.0f;
  cublas_check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, in, N, A, in, K, &zero, C, CUDA_R_32F, N,
                            compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

struct Entry {
  std::string name;
  double gamma;  // the bound's factor: |C - C_fp32| <= gamma * sum_k |a_ik| |b_kj|
  std::function<void()> run;
  bool runs = true;  // false: not on this GPU (the cell says why in short)
};

}  // namespace

void print_gemm_table(bool quick, int repeats) {
  std::printf("\n== 2. GEMMs on the Tensor Cores (10.2-10.4, 10.8): ms (TFLOP/s), median of %d, CUDA events\n", repeats);
  cublasHandle_t h;
  cublas_check(cublasCreate(&h), "cublasCreate");
  std::vector<std::string> not_run;  // why a column's cell says "—"
  std::vector<int> sizes = quick ? std::vector<int>{257, 1024} : std::vector<int>{1000, 1024, 2048, 4096};
  std::printf("| M = N = K | lesson 04 FP32 | WMMA TF32 | WMMA BF16 | pipelined TF32 | pipelined BF16 | mma.sync BF16 | "
              "wgmma TF32 | wgmma BF16 | cuBLAS FP32 | cuBLAS TF32 | cuBLAS BF16 | best TF32 / cuBLAS | best BF16 / cuBLAS |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int n : sizes) {
    const int M = n, N = n, K = n;
    const size_t a_count = size_t(M) * K, b_count = size_t(K) * N, c_count = size_t(M) * N;
    course::Rng rng{uint64_t(n)};
    std::vector<float> a(a_count), b(b_count);
    rng.fill_uniform(a, -1.0f, 1.0f);
    rng.fill_uniform(b, -1.0f, 1.0f);
    std::vector<float> a_abs(a_count), b_abs(b_count);
    for (size_t i = 0; i < a_count; ++i) a_abs[i] = std::fabs(a[i]);
    for (size_t i = 0; i < b_count; ++i) b_abs[i] = std::fabs(b[i]);
    course::DeviceBuffer<float> dA(a), dB(b), dC(c_count), dRef(c_count), dAbsA(a_abs), dAbsB(b_abs), dScale(c_count);
    course::DeviceBuffer<uint16_t> hA(a_count), hB(b_count);
    const std::string wgmma_problem = tensor_cores::gemm_wgmma_problem(M, N, K, 2);
    const bool hopper = wgmma_problem.empty();
    if (!hopper) not_run.push_back("wgmma at " + std::to_string(n) + "^3: " + wgmma_problem);
    course::DeviceBuffer<float> workspace(hopper ? tensor_cores::gemm_wgmma_tf32_workspace_floats(N, K) : 1);
    tensor_cores::to_bf16_gpu(dA.data(), hA.data(), a_count);
    tensor_cores::to_bf16_gpu(dB.data(), hB.data(), b_count);
    // The reference: cuBLAS in plain FP32; the scale of each element: sum_k |a_ik| |b_kj|.
    cublas_gemm(h, dA.data(), dB.data(), dRef.data(), M, N, K, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
    cublas_gemm(h, dAbsA.data(), dAbsB.data(), dScale.data(), M, N, K, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
    const std::vector<float> ref = dRef.to_host(), scale = dScale.to_host();
    // Bounds: two inputs rounded (relative 2^-11 each for TF32, 2^-8 for BF16), FP32 sums of K terms.
    const double fp32_sum = 2.0 * K * 0x1p-24;
    // wgmma TF32: A's low bits dropped by the Tensor Cores (2^-10), B rounded to nearest (2^-11).
    const std::vector<Entry> entries = {
        {"lesson 04 FP32", fp32_sum, [&] { gemm_dense::matmul(gemm_dense::MatmulKernel::double_buffered, dA.data(), dB.data(), dC.data(), M, N, K); }},
        {"WMMA TF32", 2 * 0x1p-11 + fp32_sum, [&] { tensor_cores::gemm_wmma_tf32(dA.data(), dB.data(), dC.data(), M, N, K); }},
        {"WMMA BF16", 2 * 0x1p-8 + fp32_sum, [&] { tensor_cores::gemm_wmma_bf16(hA.data(), hB.data(), dC.data(), M, N, K); }},
        {"pipelined TF32", 2 * 0x1p-11 + fp32_sum, [&] { tensor_cores::gemm_pipelined_tf32(dA.data(), dB.data(), dC.data(), M, N, K); }},
        {"pipelined BF16", 2 * 0x1p-8 + fp32_sum, [&] { tensor_cores::gemm_pipelined_bf16(hA.data(), hB.data(), dC.data(), M, N, K); }},
        {"mma.sync BF16", 2 * 0x1p-8 + fp32_sum, [&] { tensor_cores::gemm_mma_bf16(hA.data(), hB.data(), dC.data(), M, N, K); }},
        {"wgmma TF32", 0x1p-10 + 0x1p-11 + fp32_sum, [&] { tensor_cores::gemm_wgmma_tf32(dA.data(), dB.data(), dC.data(), M, N, K, workspace.data()); }, hopper},
        {"wgmma BF16", 2 * 0x1p-8 + fp32_sum, [&] { tensor_cores::gemm_wgmma_bf16(hA.data(), hB.data(), dC.data(), M, N, K); }, hopper},
        {"cuBLAS FP32", fp32_sum, [&] { cublas_gemm(h, dA.data(), dB.data(), dC.data(), M, N, K, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC); }},
        {"cuBLAS TF32", 2 * 0x1p-11 + fp32_sum, [&] { cublas_gemm(h, dA.data(), dB.data(), dC.data(), M, N, K, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32); }},
        {"cuBLAS BF16", 2 * 0x1p-8 + fp32_sum, [&] { cublas_gemm(h, hA.data(), hB.data(), dC.data(), M, N, K, CUDA_R_16BF, CUBLAS_COMPUTE_32F); }},
    };
    const double flops = 2.0 * M * N * K;
    std::vector<double> ms;  // per entry; infinity where it does not run
    std::printf("| %d |", n);
    for (const Entry& e : entries) {
      if (!e.runs) {
        ms.push_back(INFINITY);
        std::printf(" — |");
        continue;
      }
      dC.poison();
      e.run();
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> got = dC.to_host();
      for (size_t i = 0; i < c_count; ++i) {
        const double err = std::fabs(double(got[i]) - ref[i]);
        if (!(err <= e.gamma * scale[i] + 1e-30))
          throw course::Error(e.name + " at " + std::to_string(n) + "^3: C[" + std::to_string(i) + "] = " +
                              std::to_string(got[i]) + ", FP32 cuBLAS gives " + std::to_string(ref[i]) +
                              ", beyond the bound " + std::to_string(e.gamma * scale[i]));
      }
      const double t = course::time_gpu(e.run, 2, repeats).median_ms;
      ms.push_back(t);
      std::printf(" %.3f (%.1f) |", t, flops / (t * 1e-3) / 1e12);
    }
    const auto at = [&](const char* name) {
      for (size_t i = 0; i < entries.size(); ++i)
        if (entries[i].name == name) return ms[i];
      throw course::Error(std::string("gemm table: no entry ") + name);
    };
    const double best_tf32 = std::min({at("WMMA TF32"), at("pipelined TF32"), at("wgmma TF32")});
    const double best_bf16 = std::min({at("WMMA BF16"), at("pipelined BF16"), at("mma.sync BF16"), at("wgmma BF16")});
    std::printf(" %.0f %% | %.0f %% |\n", 100.0 * at("cuBLAS TF32") / best_tf32, 100.0 * at("cuBLAS BF16") / best_bf16);
    std::fflush(stdout);
  }
  cublasDestroy(h);
  for (const std::string& why : not_run) std::printf("— %s\n", why.c_str());
  std::printf("\nevery GEMM checked against cuBLAS in FP32 (|error| <= its format's bound x sum |a||b|) before timing\n");
  std::printf("GEMMs done\n");
}

}  // namespace lesson10
