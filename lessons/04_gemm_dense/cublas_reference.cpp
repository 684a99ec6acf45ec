// cuBLAS is column-major; a row-major matrix is the column-major matrix of its transpose.
// So the row-major C = A * B is computed as the column-major C^T = B^T * A^T: pass B first,
// then A, with the sizes swapped (n = N rows of C^T, m = M columns).
#include "cublas_reference.hpp"

#include <cublas_v2.h>

#include <string>

#include "course/error.hpp"

namespace lesson04 {

namespace {

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw course::Error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                        cublasGetStatusString(status) + ")");
}

cublasHandle_t as_handle(void* h) { return static_cast<cublasHandle_t>(h); }

}  // namespace

CublasSgemm::CublasSgemm() {
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  handle_ = handle;
  check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

CublasSgemm::~CublasSgemm() {
  if (handle_) cublasDestroy(as_handle(handle_));
}

void CublasSgemm::matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  // C^T [N x M] = B^T [N x K] * A^T [K x M]; row-major B is column-major B^T with ld = N.
  check(cublasSgemm(as_handle(handle_), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N),
        "cublasSgemm");
}

void CublasSgemm::matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  // C^T [N x M] = B [N x K] * A^T [K x M]; row-major B [N x K] is column-major B^T [K x N], ld = K,
  // so it is used transposed.
  check(cublasSgemm(as_handle(handle_), CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, K, A, K, &zero, C, N),
        "cublasSgemm");
}

void CublasSgemm::matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  // C^T [N x M] = B^T [N x K] * A [K x M]; row-major A [K x M] is column-major A^T [M x K], ld = M,
  // so it is used transposed.
  check(cublasSgemm(as_handle(handle_), CUBLAS_OP_N, CUBLAS_OP_T, N, M, K, &one, B, N, A, M, &zero, C, N),
        "cublasSgemm");
}

std::string CublasSgemm::description() const {
  int version = 0;
  check(cublasGetVersion(as_handle(handle_), &version), "cublasGetVersion");
  // e.g. 130001 -> 13.0.1 (major * 10000 + minor * 100 + patch)
  return "cuBLAS " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100) + ", CUBLAS_DEFAULT_MATH (FP32 arithmetic, TF32 off)";
}

}  // namespace lesson04
