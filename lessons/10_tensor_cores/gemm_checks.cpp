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

namespace tensor_cores::detail {

void check_conv_mma(const char* what, const host_layers::ConvShape& s, bool backward) {
  const std::string name(what);
  if (s.batch < 1 || s.in_channels < 1 || s.height < 1 || s.width < 1 || s.out_channels < 1 || s.kernel_h < 1 ||
      s.kernel_w < 1 || s.stride < 1 || s.pad < 0)
    throw course::Error(name + ": every size and the stride must be >= 1 and the padding >= 0");
  if (s.out_h() < 1 || s.out_w() < 1) throw course::Error(name + ": the kernel is larger than the padded image");
  const double limit = 2147483647.0;
  if (double(s.input_size()) >= limit || double(s.output_size()) >= limit || double(s.weight_size()) >= limit)
    throw course::Error(name + ": a tensor of 2^31 elements or more");
  if (backward && (s.stride != 1 || s.kernel_h != s.kernel_w || s.pad > s.kernel_h - 1))
    throw course::Error(name + ": the input gradient as a convolution needs stride 1, a square kernel and pad <= "
                               "kernel - 1 (got stride " + std::to_string(s.stride) + ", kernel " +
                        std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + ", pad " +
                        std::to_string(s.pad) + ")");
  const std::string why = tensor_core_problem();
  if (!why.empty()) throw course::Error(name + ": " + why);
}

}  // namespace tensor_cores::detail
