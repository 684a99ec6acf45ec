// Lesson 10 (given): the checks of the Tensor Core GEMMs (gemm_checks.hpp).
#include "gemm_checks.hpp"

#include <string>

#include "course/device_info.hpp"
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

std::string tensor_core_problem() {
  const int cc = course::compute_capability(0);
  if (cc == 0) return "no usable CUDA GPU";
  if (cc < 80)
    return "TF32 and BF16 Tensor Cores need compute capability 8.0 (Ampere) or newer; this GPU is " +
           std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  return "";
}

void detail::check_tensor_core_gemm(const char* what, int M, int N, int K) {
  if (M < 1 || N < 1 || K < 1)
    throw course::Error(std::string(what) + ": M, N and K must be >= 1, got " + std::to_string(M) + ", " +
                        std::to_string(N) + ", " + std::to_string(K));
  const std::string why = tensor_core_problem();
  if (!why.empty()) throw course::Error(std::string(what) + ": " + why);
}

}  // namespace tensor_cores
