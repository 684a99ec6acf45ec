#pragma once
// Lesson 09, step 09.13 (given): the thin first layer's two kernels around the parts you write
// (thin_window and thin_gradient_term in exercises/conv_thin.cu).
//
//   forward   block (image n, kThinBlockO output channels): the padded image and the block's weights
//             in shared memory; thread -> one pooled output (o, ph, pw) at a time:
//             thin_window -> its value after the ReLU and its winner's place in the conv's output
//   backward  block (kThinBlockO output channels, a slice of the images), warp w -> channel o:
//             for each image of the slice: the padded image in shared memory; lane -> pooled
//             outputs q = lane, lane + 32, ...: thin_gradient_term adds the output's gradient to the
//             lane's C*k*k + 1 sums (dW's taps, then dbias); the warp adds its lanes' sums (a fixed
//             shuffle tree), lane 0 writes the slice's sums; thin_dw_sum adds the slices in order.
#include <cuda_runtime.h>

#include "fast_training.hpp"

namespace fast_training {
namespace detail {

constexpr int kThinBlockO = 8;      // output channels per block (one warp each in the backward)
constexpr int kThinThreads = 256;
constexpr int kThinSmemFloats = 12 * 1024;  // 48 KiB: the padded image (and the forward's weights)

struct ThinArgs {
  const float* x;        // [N][C][H][W]
  const float* W;        // [O][C][K][K]
  const float* bias;     // [O]
  float* pooled;         // [N][O][PH][PW]
  int* argmax;           // [N][O][PH][PW]: index into the conv's [N][O][OH][OW] output, or -1
  const int* argmax_in;  // backward: the forward's argmax
  const float* d_pooled; // backward: dL/d pooled
  float* workspace;      // backward: [slices][O][C*K*K + 1]
  int N, in_h, in_w, O, pad, OH, OW, window, PH, PW;
  int HP, WP;            // the padded image: in_h + 2 pad, in_w + 2 pad
  int per_slice;         // backward: images per slice
};

// ---- the parts you write (exercises/conv_thin.cu) ---------------------------------------------
// The pooled output (ph, pw) of one output channel: xs is the padded image [C][a.HP][a.WP] in shared
// memory, ws the channel's C*K*K weights, bias its bias. Computes the conv's window x window outputs
// (oh, ow) = (ph * window + wi, pw * window + wj) under it, takes the first maximum (wi, then wj, in
// order; a later equal value does not win), then the ReLU: value = the maximum if it is > 0, else 0;
// winner = oh * a.OW + ow of the maximum if it is > 0, else -1.
template <int C, int K>
__device__ void thin_window(const float* xs, const float* ws, float bias, const ThinArgs& a, int ph, int pw,
                            float& value, int& winner);
// One pooled output's gradient g, whose window's winner is `winner` (oh * a.OW + ow, or -1: the ReLU
// stopped it) in the conv's output: adds g times the input under each tap t = (c * K + i) * K + j of
// the winner's window to acc[t], and g to acc[C * K * K] (dbias). Nothing when winner is -1.
template <int C, int K>
__device__ void thin_gradient_term(const float* xs, const ThinArgs& a, int winner, float g,
                                   float (&acc)[C * K * K + 1]);

// The padded image of example n into xs (zeros around it), by every thread of the block.
template <int C>
__device__ void stage_padded_image(const ThinArgs& a, int n, float* xs) {
  const int plane = a.HP * a.WP;
  for (int idx = threadIdx.x; idx < C * plane; idx += blockDim.x) {
    const int c = idx / plane, r = idx - c * plane;
    const int h = r / a.WP - a.pad, w = r % a.WP - a.pad;
    xs[idx] = (h >= 0 && h < a.in_h && w >= 0 && w < a.in_w) ? a.x[((size_t(n) * C + c) * a.in_h + h) * a.in_w + w] : 0.0f;
  }
}

template <int C, int K>
__global__ void __launch_bounds__(kThinThreads) thin_forward_kernel(ThinArgs a) {
  constexpr int kTaps = C * K * K;
  extern __shared__ float smem[];
  float* xs = smem;                            // [C][HP][WP]
  float* ws = xs + C * a.HP * a.WP;            // [kThinBlockO][kTaps]
  float* bs = ws + kThinBlockO * kTaps;        // [kThinBlockO]
  const int n = blockIdx.x, o0 = blockIdx.y * kThinBlockO;
  const int channels = min(kThinBlockO, a.O - o0);
  stage_padded_image<C>(a, n, xs);
  for (int idx = threadIdx.x; idx < channels * kTaps; idx += blockDim.x) ws[idx] = a.W[size_t(o0) * kTaps + idx];
  if (threadIdx.x < channels) bs[threadIdx.x] = a.bias[o0 + threadIdx.x];
  __syncthreads();
  const int per_channel = a.PH * a.PW;
  for (int item = threadIdx.x; item < channels * per_channel; item += blockDim.x) {
    const int ol = item / per_channel, q = item - ol * per_channel;
    const int ph = q / a.PW, pw = q - ph * a.PW;
    float value = 0.0f;
    int winner = -1;
    thin_window<C, K>(xs, ws + ol * kTaps, bs[ol], a, ph, pw, value, winner);
    const size_t plane = size_t(n) * a.O + o0 + ol;
    a.pooled[plane * per_channel + q] = value;
    a.argmax[plane * per_channel + q] = winner >= 0 ? int(plane * a.OH * a.OW) + winner : -1;
  }
}

template <int C, int K>
__global__ void __launch_bounds__(kThinThreads) thin_backward_kernel(ThinArgs a) {
  constexpr int kTaps = C * K * K;
  extern __shared__ float smem[];
  float* xs = smem;  // [C][HP][WP], one image at a time
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int o = blockIdx.x * kThinBlockO + warp, slice = blockIdx.y;
  const int first = slice * a.per_slice, last = min(a.N, first + a.per_slice);
  const int per_channel = a.PH * a.PW;
  float acc[kTaps + 1];
#pragma unroll
  for (int t = 0; t <= kTaps; ++t) acc[t] = 0.0f;
  for (int n = first; n < last; ++n) {
    __syncthreads();  // the previous image's readers are done
    stage_padded_image<C>(a, n, xs);
    __syncthreads();
    if (o < a.O) {
      const size_t plane = size_t(n) * a.O + o;
      for (int q = lane; q < per_channel; q += 32) {
        const int at = a.argmax_in[plane * per_channel + q];
        const int winner = at < 0 ? -1 : at - int(plane * a.OH * a.OW);
        thin_gradient_term<C, K>(xs, a, winner, a.d_pooled[plane * per_channel + q], acc);
      }
    }
  }
  if (o >= a.O) return;
  float* out = a.workspace + (size_t(slice) * a.O + o) * (kTaps + 1);
#pragma unroll
  for (int t = 0; t <= kTaps; ++t) {
    float v = acc[t];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) out[t] = v;
  }
}

// The backward's plan: slices of the images (about 256 blocks in all) and images per slice.
struct ThinBackwardPlan {
  int slices = 1, per_slice = 1;
};
ThinBackwardPlan thin_backward_plan(const ConvShape& c);
// Given (conv_thin_common.cu): the shape rule in a form both files use; dW[o][t] (t < taps) and
// dbias[o] (t == taps) as the slices' sums added in slice order.
ThinArgs thin_args(const ConvShape& c, const host_layers::PoolShape& p);
size_t thin_forward_smem_bytes(const ConvShape& c);
size_t thin_backward_smem_bytes(const ConvShape& c);
void thin_dw_sum(const float* workspace, float* dW, float* dbias, int O, int taps, int slices, cudaStream_t stream);
void require_thin(const ConvShape& c, const host_layers::PoolShape& p, const char* who);

}  // namespace detail
}  // namespace fast_training
