// Lesson 09, step 09.13: the thin first layer. YOUR FILE: thin_window (forward: one pooled output
// from the conv's outputs under its window) and thin_gradient_term (backward: one pooled output's
// gradient into dW and dbias through its window's winner), both marked TODO; the kernels around them
// are conv_thin.cuh, the launches at the bottom are written for you.
#include <string>

#include "conv_thin.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {

namespace detail {

template <int C, int K>
__device__ void thin_window(const float* xs, const float* ws, float bias, const ThinArgs& a, int ph, int pw,
                            float& value, int& winner) {
  // TODO(09.13): for each (wi, wj) of the pool's window, in order: the conv's output at
  // (oh, ow) = (ph * a.window + wi, pw * a.window + wj) is bias plus, over c < C, i < K, j < K,
  // ws[(c * K + i) * K + j] times the padded input xs[(c * a.HP + oh + i) * a.WP + ow + j]. Keep the
  // first maximum (a later output must be strictly larger to replace it) and where it is; then the
  // ReLU: a maximum > 0 gives value = it and winner = oh * a.OW + ow, else value = 0, winner = -1.
  (void)xs, (void)ws, (void)bias, (void)a, (void)ph, (void)pw;
  value = 0.0f;
  winner = -1;
}

template <int C, int K>
__device__ void thin_gradient_term(const float* xs, const ThinArgs& a, int winner, float g,
                                   float (&acc)[C * K * K + 1]) {
  // TODO(09.13): nothing when winner is -1. Else the winner is the conv's output (oh, ow) with
  // winner = oh * a.OW + ow: add g times the padded input under each tap to that tap's sum,
  // acc[(c * K + i) * K + j] += g * xs[(c * a.HP + oh + i) * a.WP + ow + j], and g to acc[C * K * K].
  (void)xs, (void)a, (void)winner, (void)g, (void)acc;
}

}  // namespace detail

// ---- given: the launches ------------------------------------------------------------------------
namespace {

// The kernels of each supported (input channels, kernel size), as thin_conv_problem allows them.
template <template <int, int> class Pick>
auto kernel_for(const ConvShape& c) {
  const int k = c.kernel_h;
  switch (c.in_channels * 10 + k) {
    case 13: return Pick<1, 3>::get();
    case 15: return Pick<1, 5>::get();
    case 23: return Pick<2, 3>::get();
    case 33: return Pick<3, 3>::get();
    default: throw course::Error("thin conv: no kernel for " + std::to_string(c.in_channels) + " channels, k " +
                                 std::to_string(k));
  }
}
template <int C, int K>
struct ForwardKernel {
  static auto get() { return detail::thin_forward_kernel<C, K>; }
};
template <int C, int K>
struct BackwardKernel {
  static auto get() { return detail::thin_backward_kernel<C, K>; }
};

}  // namespace

void thin_conv_relu_maxpool(const ConvShape& c, const host_layers::PoolShape& p, const float* x, const float* W,
                            const float* bias, float* pooled, int* argmax, cudaStream_t stream) {
  detail::require_thin(c, p, "thin_conv_relu_maxpool");
  detail::ThinArgs a = detail::thin_args(c, p);
  a.x = x, a.W = W, a.bias = bias, a.pooled = pooled, a.argmax = argmax;
  const dim3 grid(unsigned(c.batch), unsigned((c.out_channels + detail::kThinBlockO - 1) / detail::kThinBlockO));
  kernel_for<ForwardKernel>(c)<<<grid, detail::kThinThreads, detail::thin_forward_smem_bytes(c), stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

void thin_conv_backward_weight(const ConvShape& c, const host_layers::PoolShape& p, const float* x, const int* argmax,
                               const float* d_pooled, float* dW, float* dbias, float* workspace, cudaStream_t stream) {
  detail::require_thin(c, p, "thin_conv_backward_weight");
  detail::ThinArgs a = detail::thin_args(c, p);
  const detail::ThinBackwardPlan plan = detail::thin_backward_plan(c);
  a.x = x, a.argmax_in = argmax, a.d_pooled = d_pooled, a.workspace = workspace, a.per_slice = plan.per_slice;
  const dim3 grid(unsigned((c.out_channels + detail::kThinBlockO - 1) / detail::kThinBlockO), unsigned(plan.slices));
  kernel_for<BackwardKernel>(c)<<<grid, detail::kThinThreads, detail::thin_backward_smem_bytes(c), stream>>>(a);
  CUDA_CHECK_LAUNCH();
  const int taps = c.in_channels * c.kernel_h * c.kernel_w;
  detail::thin_dw_sum(workspace, dW, dbias, c.out_channels, taps, plan.slices, stream);
}

}  // namespace fast_training
