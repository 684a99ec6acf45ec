// Lesson 10, step 10.6: the image in shared memory, channels last: a convolution as a sum over the
// kernel's taps of channel GEMMs on the Tensor Cores. YOUR FILE: accumulate_taps (marked TODO); the
// staging of the image and the weights, the stores, the weights' layout and the launches are given
// below (conv_mma_tiled.cuh says how they fit).
#include <string>

#include "conv_mma_tiled.cuh"
#include "course/arithmetic.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace detail {

#if COURSE_WMMA
__device__ void accumulate_taps(const TiledConv& g, const __nv_bfloat16* img, const __nv_bfloat16* wts,
                                const int (&pixel)[2][2], int tiles, int n_tiles,
                                float (&acc)[2][kTiledConvMaxTilesN][4]) {
  // TODO(10.6): for each tap (i, j) and each c0 = 0, 16, .. below C: load this warp's A fragments (one
  // per tile mi < tiles, a_fragment_k_major) and, for each nt < n_tiles, the B fragment of output
  // channels 8 nt .. (b_fragment_k_major); then mma_bf16_16816(acc[mi][nt], a[mi], b0, b1).
  // Addresses: conv_mma_tiled.cuh; the fragments' layout: mma_gemm.cuh.
  (void)g, (void)img, (void)wts, (void)pixel, (void)tiles, (void)n_tiles, (void)acc;
}
#endif

// ---- given: the kernel ---------------------------------------------------------------------------
#if COURSE_WMMA
// The statistics of g.stats (conv_mma_tiled.cuh) for this block's channels o0 .. o0 + 8 kNTiles - 1,
// in two passes over the accumulators: the sums give each channel's mean, then the squares around
// it. Lanes of one t hold the same channels: their sums meet by shuffles, the warps' in shared memory.
template <int kNTiles>
__device__ void block_statistics(const TiledConv& g, const float (&acc)[2][kTiledConvMaxTilesN][4], int tiles, int P,
                                 int o0) {
  __shared__ float warp_sums[kTiledConvThreads / 32][8 * kNTiles];
  __shared__ float mean[8 * kNTiles];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, t = lane % 4;
  float bias[kNTiles][2];  // this thread's channels' biases, read once
#pragma unroll
  for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
    for (int e = 0; e < 2; ++e) bias[nt][e] = g.bias ? __ldg(g.bias + o0 + 8 * nt + 2 * t + e) : 0.0f;
  for (int pass = 0; pass < 2; ++pass) {
    float sums[kNTiles][2] = {};
#pragma unroll
    for (int mi = 0; mi < 2; ++mi) {
      if (mi >= tiles) break;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if ((warp + 8 * mi) * 16 + gq + 8 * h >= P) continue;  // a row past the band: not stored
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int c = 8 * nt + 2 * t + e;
            const float v = acc[mi][nt][2 * h + e] + bias[nt][e];
            sums[nt][e] += pass == 0 ? v : (v - mean[c]) * (v - mean[c]);
          }
      }
    }
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        for (int offset = 4; offset < 32; offset *= 2) sums[nt][e] += __shfl_xor_sync(0xffffffffu, sums[nt][e], offset);
        if (gq == 0) warp_sums[warp][8 * nt + 2 * t + e] = sums[nt][e];
      }
    __syncthreads();
    if (tid < 8 * kNTiles) {
      float total = 0.0f;
      for (int w = 0; w < kTiledConvThreads / 32; ++w) total += warp_sums[w][tid];
      if (pass == 0) {
        mean[tid] = total / float(P);
      } else {
        const size_t entries = size_t(gridDim.x) * gridDim.z, entry = size_t(blockIdx.x) * gridDim.z + blockIdx.z;
        float* to = g.stats + 3 * (size_t(o0 + tid) * entries + entry);
        to[0] = float(P), to[1] = mean[tid], to[2] = total;
      }
    }
    if (pass == 0) __syncthreads();  // the means are read, and warp_sums free again, only after this
  }
}
#endif

// kNTiles: the n8 tiles of output channels a block computes (part.O / 8), known to the compiler.
// kStats: g.stats is set (a kernel of its own: the statistics' registers cost the others nothing).
template <int kNTiles, bool kStats>
__global__ void __launch_bounds__(kTiledConvThreads) conv_mma_tiled_kernel(TiledConv g) {
#if COURSE_WMMA
  extern __shared__ __align__(16) unsigned char tiled_smem[];
  __nv_bfloat16* img = reinterpret_cast<__nv_bfloat16*>(tiled_smem);
  const int img_values = g.Hp * g.Wp * g.ldc;
  __nv_bfloat16* wts = img + img_values;  // img_values is a multiple of 8: 16-byte aligned
  const int tid = threadIdx.x, n = blockIdx.x;
  // This block's band (blockIdx.z): output rows r0 .. r0 + band_rows - 1, which read the padded rows
  // r0 .. r0 + band_rows + k - 2, staged as rows 0 .. of img. One band: the whole image.
  const int r0 = blockIdx.z * g.band_rows, band_rows = min(g.band_rows, g.OH - r0);

  // The rows: zeros everywhere (the padding, and the 8 spare channels), then their values, BF16.
  for (int e = tid; e < img_values / 2; e += kTiledConvThreads) reinterpret_cast<uint32_t*>(img)[e] = 0u;
  __syncthreads();
  const float* x = g.in + size_t(n) * g.C * g.H * g.W;
  const int h_first = max(0, r0 - g.pad), h_end = min(g.H, r0 + band_rows + g.k - 1 - g.pad);
  // A thread a pair of channels of one pixel (both read along w: coalesced), one 32-bit store; the
  // walk over [C / 2][the band's input rows][W].
  if (h_end > h_first)
    stage_in_rounds<4, float2>(
        StagingWalk(tid, kTiledConvThreads, h_end - h_first, g.W), g.C / 2,
        [&](const StagingWalk& at, float2& v) {
          const int h = h_first + at.b;
          const float* from = x + (size_t(2 * at.a) * g.H + h) * g.W + at.c;
          v = make_float2(__ldg(from), __ldg(from + g.H * g.W));
          return ((h + g.pad - r0) * g.Wp + at.c + g.pad) * g.ldc + 2 * at.a;
        },
        [&](int to, float2 v) { *reinterpret_cast<__nv_bfloat162*>(img + to) = __floats2bfloat162_rn(v.x, v.y); });
  // This block's output channels (10.9): part blockIdx.y of gridDim.y, o0 .. o0 + part.O - 1. To the
  // taps it is a convolution with part.O output channels, whose weights it stages alone.
  TiledConv part = g;
  part.O = g.O / gridDim.y;
  const int o0 = blockIdx.y * part.O;
  // The weights: k*k*part.O rows of C values, 16 bytes at a time, each row to its padded place.
  const int rows = g.k * g.k * part.O, chunks = g.C / 8;
  for (int e = tid; e < rows * chunks; e += kTiledConvThreads) {
    const int row = e / chunks, q = e - row * chunks, tap = row / part.O, o = row - tap * part.O;
    *reinterpret_cast<uint4*>(wts + size_t(row) * g.ldc + 8 * q) =
        __ldg(reinterpret_cast<const uint4*>(g.weights + (size_t(tap) * g.O + o0 + o) * g.C + 8 * q));
  }
  __syncthreads();

  // This warp's m16 tiles (w and w + 8), and where each of this lane's two rows of each tile starts.
  const int warp = tid / 32, lane = tid % 32, gq = lane / 4, t = lane % 4;
  const int P = band_rows * g.OW, m_tiles = course::ceil_div(P, 16), n_tiles = kNTiles;  // the band's pixels
  const int tiles = (warp < m_tiles) + (warp + 8 < m_tiles);
  int pixel[2][2];
#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int p = (warp + 8 * mi) * 16 + gq + 8 * h;
      if (p >= P) p = 0;  // a row past the band: computed from pixel 0, never stored
      const int oh = p / g.OW, ow = p - oh * g.OW;
      pixel[mi][h] = (oh * g.Wp + ow) * g.ldc;
    }
  float acc[2][kTiledConvMaxTilesN][4] = {};
  accumulate_taps(part, img, wts, pixel, tiles, n_tiles, acc);

  // out[n][o][p] (+ bias[o]): c0, c1 at row gq, c2, c3 at row gq + 8 of each tile; the band's pixel
  // p is the image's r0 OW + p.
  const size_t image_pixels = size_t(g.OH) * g.OW;
  float* out = g.out + size_t(n) * g.O * image_pixels + size_t(r0) * g.OW;
#pragma unroll
  for (int mi = 0; mi < 2; ++mi) {
    if (mi >= tiles) break;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int p = (warp + 8 * mi) * 16 + gq + 8 * h;
      if (p >= P) continue;
#pragma unroll
      for (int nt = 0; nt < kTiledConvMaxTilesN; ++nt) {
        if (nt >= n_tiles) break;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int o = o0 + 8 * nt + 2 * t + e;
          out[size_t(o) * image_pixels + p] = acc[mi][nt][2 * h + e] + (g.bias ? __ldg(g.bias + o) : 0.0f);
        }
      }
    }
  }
  if (kStats) block_statistics<kNTiles>(g, acc, tiles, P, o0);
#endif
}

// Both layouts of the weights, BF16, in one launch: forward [k k][O][C] = W[o][c][i][j]; input
// gradient [k k][C][O] = W[o][c][k-1-i][k-1-j] (09.3's flipped kernel, its channels swapped).
__global__ void conv_mma_tiled_weights_kernel(const float* __restrict__ W, __nv_bfloat16* __restrict__ out, int O,
                                              int C, int k) {
  const int taps = k * k, per_pass = taps * O * C;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < 2 * per_pass; e += gridDim.x * blockDim.x) {
    const bool backward = e >= per_pass;
    const int f = backward ? e - per_pass : e;
    const int tap = f / (O * C), r = f - tap * O * C;
    int o, c, i = tap / k, j = tap - (tap / k) * k;
    if (!backward) {
      o = r / C, c = r - o * C;
    } else {
      c = r / O, o = r - c * O;
      i = k - 1 - i, j = k - 1 - j;
    }
    out[e] = __float2bfloat16_rn(W[((size_t(o) * C + c) * k + i) * k + j]);
  }
}

namespace {

constexpr size_t kTiledSmemLimit = 200 * 1024;  // below the 227 KiB a block may have on sm_90, 163 on sm_80

// Why the kernel cannot run a pass with `in_c` input channels, `out_c` output channels, images
// in_w wide in and out_h x out_w out, padding pad ("" when it can).
std::string pass_problem(int in_c, int out_c, int in_w, int out_h, int out_w, int k, int pad) {
  if (in_c % 16 != 0) return std::to_string(in_c) + " input channels (needs a multiple of 16)";
  if (out_c % 8 != 0 || out_c > 8 * kTiledConvMaxTilesN)
    return std::to_string(out_c) + " output channels (needs a multiple of 8, at most 64)";
  const int band = tiled_band_rows(out_h, out_w);
  if (band < 1) return "an output row of more than 256 pixels";
  if (tiled_smem_bytes(band + k - 1, in_w + 2 * pad, in_c + 8, k, out_c) > kTiledSmemLimit)
    return "a band of the image and the weights need more than 200 KiB of shared memory";
  return "";
}

// The kernel compiled for n_tiles n8 tiles (1 .. 8), with the statistics or without.
using TiledKernel = void (*)(TiledConv);
template <bool kStats>
TiledKernel tiled_kernel_of(int n_tiles) {
  static const TiledKernel kernels[kTiledConvMaxTilesN] = {
      conv_mma_tiled_kernel<1, kStats>, conv_mma_tiled_kernel<2, kStats>, conv_mma_tiled_kernel<3, kStats>,
      conv_mma_tiled_kernel<4, kStats>, conv_mma_tiled_kernel<5, kStats>, conv_mma_tiled_kernel<6, kStats>,
      conv_mma_tiled_kernel<7, kStats>, conv_mma_tiled_kernel<8, kStats>};
  return kernels[n_tiles - 1];
}
TiledKernel tiled_kernel(int n_tiles, bool stats = false) {
  if (n_tiles < 1 || n_tiles > kTiledConvMaxTilesN)
    throw course::Error("the tiled convolution: " + std::to_string(8 * n_tiles) +
                        " output channels a block (needs 8 .. 64)");
  return stats ? tiled_kernel_of<true>(n_tiles) : tiled_kernel_of<false>(n_tiles);
}

void launch_tiled(const TiledConv& g, int parts, cudaStream_t stream) {
  if (parts < 1 || g.O % (8 * parts) != 0)
    throw course::Error("the tiled convolution: " + std::to_string(g.O) + " output channels do not split into " +
                        std::to_string(parts) + " parts of a multiple of 8");
  const size_t bytes = tiled_smem_bytes(g.Hp, g.Wp, g.ldc, g.k, g.O / parts);
  const auto kernel = tiled_kernel(g.O / parts / 8, g.stats != nullptr);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  const int bands = course::ceil_div(g.OH, g.band_rows);
  kernel<<<dim3(g.N, parts, bands), kTiledConvThreads, bytes, stream>>>(g);
  CUDA_CHECK(cudaGetLastError());
}

void require_tiled(const char* what, const host_layers::ConvShape& s) {
  check_conv_mma(what, s, true);  // stride 1, square, pad <= k - 1, sizes, Tensor Cores
  const std::string why = conv_mma_tiled_problem(s);
  if (!why.empty()) throw course::Error(std::string(what) + ": " + why);
}

}  // namespace

cudaFuncAttributes conv_mma_tiled_kernel_attributes(int n_tiles, bool stats) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, tiled_kernel(n_tiles, stats)));
  return attributes;
}

}  // namespace detail

// ---- given: what runs, the weights' layout and the launches ------------------------------------
std::string conv_mma_tiled_problem(const host_layers::ConvShape& s) {
  if (s.stride != 1 || s.kernel_h != s.kernel_w || s.pad < 0 || s.pad > s.kernel_h - 1)
    return "needs stride 1, a square kernel and 0 <= pad <= kernel - 1";
  const int k = s.kernel_h, OH = s.out_h(), OW = s.out_w();
  std::string why = detail::pass_problem(s.in_channels, s.out_channels, s.width, OH, OW, k, s.pad);
  if (why.empty()) why = detail::pass_problem(s.out_channels, s.in_channels, OW, s.height, s.width, k, k - 1 - s.pad);
  return why;
}

size_t conv_mma_tiled_weights_size(const host_layers::ConvShape& s) { return 2 * s.weight_size(); }

void conv_mma_tiled_weights(const host_layers::ConvShape& s, const float* W, uint16_t* tiled_weights,
                            cudaStream_t stream) {
  detail::require_tiled("conv_mma_tiled_weights", s);
  const int total = int(2 * s.weight_size()), threads = 256;
  detail::conv_mma_tiled_weights_kernel<<<(total + threads - 1) / threads, threads, 0, stream>>>(
      W, reinterpret_cast<__nv_bfloat16*>(tiled_weights), s.out_channels, s.in_channels, s.kernel_h);
  CUDA_CHECK(cudaGetLastError());
}

int conv_mma_tiled_statistics_entries(const host_layers::ConvShape& s) {
  detail::require_tiled("conv_mma_tiled_statistics_entries", s);
  const int band = detail::tiled_band_rows(s.out_h(), s.out_w());
  return s.batch * course::ceil_div(s.out_h(), band);
}

void conv2d_forward_mma_tiled(const host_layers::ConvShape& s, const float* x, const uint16_t* tiled_weights,
                              const float* bias, float* y, cudaStream_t stream, int parts, float* stats) {
  detail::require_tiled("conv2d_forward_mma_tiled", s);
  const int k = s.kernel_h, band = detail::tiled_band_rows(s.out_h(), s.out_w());
  const detail::TiledConv g{x, reinterpret_cast<const __nv_bfloat16*>(tiled_weights), bias, y, s.batch,
                            s.in_channels, s.height, s.width, s.out_channels, k, s.pad, s.out_h(), s.out_w(),
                            band + k - 1, s.width + 2 * s.pad, s.in_channels + 8, band, stats};
  detail::launch_tiled(g, parts, stream);
}

void conv2d_backward_data_mma_tiled(const host_layers::ConvShape& s, const uint16_t* tiled_weights, const float* dy,
                                    float* dx, cudaStream_t stream, int parts) {
  detail::require_tiled("conv2d_backward_data_mma_tiled", s);
  const int k = s.kernel_h, pad = k - 1 - s.pad, OH = s.out_h(), OW = s.out_w();
  const int band = detail::tiled_band_rows(s.height, s.width);
  const detail::TiledConv g{dy, reinterpret_cast<const __nv_bfloat16*>(tiled_weights) + s.weight_size(), nullptr, dx,
                            s.batch, s.out_channels, OH, OW, s.in_channels, k, pad, s.height, s.width,
                            band + k - 1, OW + 2 * pad, s.out_channels + 8, band};
  detail::launch_tiled(g, parts, stream);
}

}  // namespace tensor_cores
