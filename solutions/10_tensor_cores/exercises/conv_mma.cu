// Lesson 10, step 10.5: a convolution on the Tensor Cores: lesson 09's implicit GEMM with BF16
// tiles. The block, its stages, the multiplies and the stores are given below (conv_mma.cuh).
#include <string>

#include "conv_mma.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace detail {

#if COURSE_WMMA
__device__ void gather_window(const ConvGemm& g, const PixelWindow& w, int k_begin, float (&a)[kConvGather]) {
  // k_begin as (c, i, j) once; then the odometer: j, then i, then c.
  const int area = g.kh * g.kw;
  int c = k_begin / area, r = k_begin - c * area, i = r / g.kw, j = r - i * g.kw;
  for (int q = 0; q < kConvGather; ++q) {
    const int h = w.top + i, x = w.left + j;
    const bool inside = w.inside && k_begin + q < g.K && unsigned(h) < unsigned(g.H) && unsigned(x) < unsigned(g.Wd);
    a[q] = inside ? __ldg(w.image + (size_t(c) * g.H + h) * g.Wd + x) : 0.0f;
    if (++j == g.kw) {
      j = 0;
      if (++i == g.kh) i = 0, ++c;
    }
  }
}
#endif

// ---- given: the kernel ---------------------------------------------------------------------------
template <int BN>
__global__ void __launch_bounds__(kConvThreads) conv_mma_kernel(ConvGemm g) {
#if COURSE_WMMA
  __shared__ __align__(16) __nv_bfloat16 As[2][kConvTileM][kConvLd];
  __shared__ __align__(16) __nv_bfloat16 Bs[2][BN][kConvLd];
  constexpr int kB = BN * kConvTileK / kConvThreads;  // weights a thread brings a stage: 16 or 8
  constexpr int kWarpN = BN / 2, kTilesN = kWarpN / 8;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int m0 = blockIdx.x * kConvTileM, n0 = blockIdx.y * BN;

  // A: this thread's pixel (row of the tile) and its half of each stage's k.
  const int a_row = tid % kConvTileM, a_k = (tid / kConvTileM) * kConvGather;
  PixelWindow w{g.in, 0, 0, false};
  if (const int p = m0 + a_row; p < g.P) {
    const int n = p / (g.OH * g.OW), pixel = p - n * g.OH * g.OW, oh = pixel / g.OW, ow = pixel - oh * g.OW;
    w = {g.in + size_t(n) * g.Cin * g.H * g.Wd, oh * g.stride - g.pad, ow * g.stride - g.pad, true};
  }
  // B: this thread's output channel (column) and its kB values of each stage's k.
  const int b_col = tid / (kConvTileK / kB), b_k = tid % (kConvTileK / kB) * kB, col = n0 + b_col;
  const int area = g.kh * g.kw;
  auto load_b = [&](int k_begin, float (&b)[kB]) {
    for (int q = 0; q < kB; ++q) {
      const int k = k_begin + b_k + q;
      float v = 0.0f;
      if (col < g.Cout && k < g.K) {
        if (!g.flipped) {
          v = __ldg(g.W + size_t(col) * g.K + k);
        } else {  // k = (o, r): W[o][col][area - 1 - r]
          const int o = k / area, r = k - o * area;
          v = __ldg(g.W + (size_t(o) * g.Cout + col) * area + (area - 1 - r));
        }
      }
      b[q] = v;
    }
  };
  auto store = [&](int buffer, const float (&a)[kConvGather], const float (&b)[kB]) {
    for (int q = 0; q < kConvGather; q += 2)
      *reinterpret_cast<__nv_bfloat162*>(&As[buffer][a_row][a_k + q]) = __floats2bfloat162_rn(a[q], a[q + 1]);
    for (int q = 0; q < kB; q += 2)
      *reinterpret_cast<__nv_bfloat162*>(&Bs[buffer][b_col][b_k + q]) = __floats2bfloat162_rn(b[q], b[q + 1]);
  };

  float acc[2][kTilesN][4] = {};
  const int wm = warp / 2, wn = warp % 2, gq = lane / 4, t = lane % 4;
  auto compute = [&](int buffer) {
    for (int kk = 0; kk < kConvTileK; kk += 16) {
      uint32_t af[2][4];
      for (int mi = 0; mi < 2; ++mi) {
        const int r = wm * 32 + mi * 16 + gq;
        a_fragment_k_major(af[mi], &As[buffer][r][kk + 2 * t], &As[buffer][r + 8][kk + 2 * t]);
      }
      for (int nj = 0; nj < kTilesN; ++nj) {
        uint32_t b0, b1;
        b_fragment_k_major(b0, b1, &Bs[buffer][wn * kWarpN + nj * 8 + gq][kk + 2 * t]);
        for (int mi = 0; mi < 2; ++mi) mma_bf16_16816(acc[mi][nj], af[mi], b0, b1);
      }
    }
  };

  const int stages = (g.K + kConvTileK - 1) / kConvTileK;
  float a[kConvGather], b[kB];
  gather_window(g, w, a_k, a);
  load_b(0, b);
  store(0, a, b);
  __syncthreads();
  for (int s = 0; s < stages; ++s) {
    const bool more = s + 1 < stages;
    if (more) {  // the next stage's loads, in flight while this stage multiplies
      gather_window(g, w, (s + 1) * kConvTileK + a_k, a);
      load_b((s + 1) * kConvTileK, b);
    }
    compute(s & 1);
    if (more) store((s + 1) & 1, a, b);  // the buffer the previous stage read: everyone is past it
    __syncthreads();
  }

  // out[n][o][oh][ow] (+ bias[o]) from the registers: c0, c1 at row gq, c2, c3 at row gq + 8.
  for (int mi = 0; mi < 2; ++mi)
    for (int half = 0; half < 2; ++half) {
      const int p = m0 + wm * 32 + mi * 16 + gq + 8 * half;
      if (p >= g.P) continue;
      const int n = p / (g.OH * g.OW), pixel = p - n * g.OH * g.OW;
      float* out = g.out + size_t(n) * g.Cout * g.OH * g.OW + pixel;
      for (int nj = 0; nj < kTilesN; ++nj)
        for (int e = 0; e < 2; ++e) {
          const int o = n0 + wn * kWarpN + nj * 8 + 2 * t + e;
          if (o < g.Cout) out[size_t(o) * g.OH * g.OW] = acc[mi][nj][2 * half + e] + (g.bias ? __ldg(g.bias + o) : 0.0f);
        }
    }
#endif
}

namespace {

void launch_conv_mma(const ConvGemm& g, cudaStream_t stream) {
  const dim3 grid((g.P + kConvTileM - 1) / kConvTileM, g.Cout <= 32 ? 1 : (g.Cout + 63) / 64);
  if (g.Cout <= 32)
    conv_mma_kernel<32><<<grid, kConvThreads, 0, stream>>>(g);
  else
    conv_mma_kernel<64><<<grid, kConvThreads, 0, stream>>>(g);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

}  // namespace detail

// ---- given: checks and launches ------------------------------------------------------------------
void conv2d_forward_mma(const host_layers::ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                        cudaStream_t stream) {
  detail::check_conv_mma("conv2d_forward_mma", s, false);
  const int OH = s.out_h(), OW = s.out_w();
  const detail::ConvGemm g{x, W, bias, y, s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h,
                           s.kernel_w, s.stride, s.pad, OH, OW, s.in_channels * s.kernel_h * s.kernel_w,
                           s.batch * OH * OW, false};
  detail::launch_conv_mma(g, stream);
}

void conv2d_backward_data_mma(const host_layers::ConvShape& s, const float* W, const float* dy, float* dx,
                              cudaStream_t stream) {
  detail::check_conv_mma("conv2d_backward_data_mma", s, true);
  // dx [N][C][H][W] = conv(dy [N][O][OH][OW], W'), padding kh-1-pad: H + 2 pad - kh + 1 = OH
  // read back to H rows.
  const detail::ConvGemm g{dy, W, nullptr, dx, s.batch, s.out_channels, s.out_h(), s.out_w(), s.in_channels,
                           s.kernel_h, s.kernel_w, 1, s.kernel_h - 1 - s.pad, s.height, s.width,
                           s.out_channels * s.kernel_h * s.kernel_w, s.batch * s.height * s.width, true};
  detail::launch_conv_mma(g, stream);
}

}  // namespace tensor_cores
