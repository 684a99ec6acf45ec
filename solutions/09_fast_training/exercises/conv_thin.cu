// Lesson 09, step 09.13: the thin first layer: one pooled output from the conv's outputs under its
// window, and one pooled output's gradient into dW and dbias through its window's winner.
#include <string>

#include "conv_thin.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {

namespace detail {

// The window's first maximum, then the ReLU: offer the conv's outputs in window order (a later equal
// value does not win); a maximum <= 0 gives value 0 and no winner (-1).
struct FirstMaximum {
  float best = 0.0f;
  int at = -1;
  __device__ void offer(float v, int place) {
    if (at < 0 || v > best) best = v, at = place;
  }
  __device__ void relu(float& value, int& winner) const {
    const bool positive = best > 0.0f;
    value = positive ? best : 0.0f;
    winner = positive ? at : -1;
  }
};

// 2 x 2 windows (every pool of the course): the (K + 1) x (K + 1) inputs under the window, one channel at
// a time, go into registers once and serve all four outputs (4 K^2 products from (K + 1)^2 loads,
// not 4 K^2): the loads from shared memory were what this kernel waited for. Each output still adds
// bias, then channel by channel, row by row, tap by tap: the same sums, bit for bit.
template <int C, int K>
__device__ void thin_window_2x2(const float* xs, const float* ws, float bias, const ThinArgs& a, int ph, int pw,
                                float& value, int& winner) {
  const int oh0 = 2 * ph, ow0 = 2 * pw;
  float v[2][2] = {{bias, bias}, {bias, bias}};
#pragma unroll
  for (int c = 0; c < C; ++c) {
    float patch[K + 1][K + 1];
#pragma unroll
    for (int i = 0; i <= K; ++i)
#pragma unroll
      for (int j = 0; j <= K; ++j) patch[i][j] = xs[(c * a.HP + oh0 + i) * a.WP + ow0 + j];
#pragma unroll
    for (int i = 0; i < K; ++i)
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const float w = ws[(c * K + i) * K + j];
#pragma unroll
        for (int wi = 0; wi < 2; ++wi)
#pragma unroll
          for (int wj = 0; wj < 2; ++wj) v[wi][wj] += w * patch[i + wi][j + wj];
      }
  }
  FirstMaximum window;
#pragma unroll
  for (int wi = 0; wi < 2; ++wi)
#pragma unroll
    for (int wj = 0; wj < 2; ++wj) window.offer(v[wi][wj], (oh0 + wi) * a.OW + ow0 + wj);
  window.relu(value, winner);
}

template <int C, int K>
__device__ void thin_window(const float* xs, const float* ws, float bias, const ThinArgs& a, int ph, int pw,
                            float& value, int& winner) {
  if (a.window == 2) {
    thin_window_2x2<C, K>(xs, ws, bias, a, ph, pw, value, winner);
    return;
  }
  FirstMaximum window;
  for (int wi = 0; wi < a.window; ++wi)
    for (int wj = 0; wj < a.window; ++wj) {
      const int oh = ph * a.window + wi, ow = pw * a.window + wj;
      float v = bias;
#pragma unroll
      for (int c = 0; c < C; ++c)
#pragma unroll
        for (int i = 0; i < K; ++i) {
          const float* row = xs + (c * a.HP + oh + i) * a.WP + ow;
#pragma unroll
          for (int j = 0; j < K; ++j) v += ws[(c * K + i) * K + j] * row[j];
        }
      window.offer(v, oh * a.OW + ow);
    }
  window.relu(value, winner);
}

template <int C, int K>
__device__ void thin_gradient_term(const float* xs, const ThinArgs& a, int winner, float g,
                                   float (&acc)[C * K * K + 1]) {
  if (winner < 0) return;  // the ReLU stopped it: no gradient anywhere in the window
  const int oh = winner / a.OW, ow = winner - oh * a.OW;
#pragma unroll
  for (int c = 0; c < C; ++c)
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const float* row = xs + (c * a.HP + oh + i) * a.WP + ow;
#pragma unroll
      for (int j = 0; j < K; ++j) acc[(c * K + i) * K + j] += g * row[j];
    }
  acc[C * K * K] += g;
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
