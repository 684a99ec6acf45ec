#pragma once
// cuBLAS SGEMM in plain FP32, the ceiling the lesson's kernels are measured against.
// Row-major products like gemm_dense's, on device pointers, default stream.
#include <string>

namespace lesson04 {

class CublasSgemm {
 public:
  // Creates the handle and sets CUBLAS_DEFAULT_MATH: FP32 arithmetic, no TF32 tensor cores
  // (TF32 would round the inputs to 10-bit mantissas: faster, but not the same arithmetic).
  CublasSgemm();
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;

  void matmul(const float* A, const float* B, float* C, int M, int N, int K);       // C = A * B
  void matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K);  // C = A * B^T
  void matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K);  // C = A^T * B

  std::string description() const;  // "cuBLAS 13.0.0, CUBLAS_DEFAULT_MATH (FP32, no TF32)"

 private:
  void* handle_ = nullptr;  // cublasHandle_t, kept out of this header
};

}  // namespace lesson04
