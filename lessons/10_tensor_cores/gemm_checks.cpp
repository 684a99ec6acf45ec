// Lesson 10 (given): the checks of the Tensor Core GEMMs (gemm_checks.hpp).
#include "gemm_checks.hpp"

#include <string>

#include "course/device_info.hpp"
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

std::string tensor_core_problem() {
  return course::compute_capability_problem(80, "TF32 and BF16 Tensor Cores");
}

void detail::check_tensor_core_gemm(const char* what, int M, int N, int K) {
  if (M < 1 || N < 1 || K < 1)
    throw course::Error(std::string(what) + ": M, N and K must be >= 1, got " + std::to_string(M) + ", " +
                        std::to_string(N) + ", " + std::to_string(K));
  const std::string why = tensor_core_problem();
  if (!why.empty()) throw course::Error(std::string(what) + ": " + why);
}

}  // namespace tensor_cores

namespace tensor_cores::detail {

void check_conv_mma(const char* what, const host_layers::ConvShape& s, bool backward) {
  const std::string name(what), problem = host_layers::conv_shape_problem(s);
  if (!problem.empty()) throw course::Error(name + ": " + problem);
  if (backward && (s.stride != 1 || s.kernel_h != s.kernel_w || s.pad > s.kernel_h - 1))
    throw course::Error(name + ": the input gradient as a convolution needs stride 1, a square kernel and pad <= "
                               "kernel - 1 (got stride " + std::to_string(s.stride) + ", kernel " +
                        std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + ", pad " +
                        std::to_string(s.pad) + ")");
  const std::string why = tensor_core_problem();
  if (!why.empty()) throw course::Error(name + ": " + why);
}

}  // namespace tensor_cores::detail
