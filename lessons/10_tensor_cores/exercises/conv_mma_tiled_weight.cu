// Lesson 10, step 10.7: the weight gradient on the Tensor Cores: per tap a GEMM of dy and the shifted
// image over the pixels, on 10.6's image in shared memory. YOUR FILE: accumulate_image (marked TODO);
// the staging, the slices (dbias's too), their fixed-order sum and the launches are given below
// (conv_mma_tiled_weight.cuh says how they fit).
#include <string>

#include "conv_mma_tiled_weight.cuh"
#include "course/arithmetic.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace detail {

#if COURSE_WMMA
__device__ void accumulate_image(const TiledWeightGrad& g, const __nv_bfloat16* img, const __nv_bfloat16* dys, int i,
                                 int o0, int c0, float (&acc)[kDwMaxKernel][2][4]) {
  // TODO(10.7): for k0 = 0, 16, .. below P16: this warp's A fragment of dys (a_fragment_k_major: rows
  // o0 + g, + 8; columns k0 + 2t ..), this lane's ldmatrix row (pixel k0 + lane % 16, or 0 past the image; channels
  // c0 + 8 (lane / 16)), then for each tap j < k: ldmatrix_x4_trans at that row moved by j pixels,
  // and two mma_bf16_16816 into acc[j][0] and acc[j][1]. Addresses: conv_mma_tiled_weight.cuh.
  (void)g, (void)img, (void)dys, (void)i, (void)o0, (void)c0, (void)acc;
}
#endif

// ---- given: the kernels --------------------------------------------------------------------------
// Two blocks an SM at most 128 registers a thread: left free, the staging's rounds (loaded while acc
// is live) take the kernel to 162 and one block an SM.
__global__ void __launch_bounds__(kDwThreads, 2) conv_mma_dw_kernel(TiledWeightGrad g) {
#if COURSE_WMMA
  extern __shared__ __align__(16) unsigned char dw_smem[];
  __nv_bfloat16* img = reinterpret_cast<__nv_bfloat16*>(dw_smem);
  const int img_values = g.Hp * g.Wp * g.ldc, dy_values = g.O * g.ldp;
  __nv_bfloat16* dys = img + img_values;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, t = lane % 4;
  // blockIdx.x: piece `piece` (output rows r0 .. r0 + rows - 1) of the images of group `group`; the
  // block's sums go to slice blockIdx.x.
  const int group = blockIdx.x / g.pieces, piece = blockIdx.x % g.pieces, P = g.OH * g.OW;
  const int r0 = piece * g.piece_rows, rows = min(g.piece_rows, g.OH - r0);
  // This warp's work (DwPlan): tile `tile` of tap row i over band `band`; the block of set s
  // (blockIdx.y) takes items 8s .. 8s + 7 of tiles x k rows x bands.
  const int o_tiles = g.O / 16, tiles = o_tiles * (g.C / 16), per_band = tiles * g.k;
  const int item = blockIdx.y * kDwWarps + warp, band = item / per_band, i = item % per_band / tiles;
  const int tile = item % tiles;
  const bool active = item < per_band * g.bands;
  const int o0 = 16 * (tile % o_tiles), c0 = 16 * (tile / o_tiles);
  // The band as an image of its own: its rows of the padded image, its pixels of dy's rows.
  const int band_pixels = g.band_rows * g.OW;
  TiledWeightGrad gb = g;
  gb.OH = max(0, min(g.band_rows, rows - band * g.band_rows));
  gb.P16 = course::round_up(gb.OH * g.OW, 16);
  const __nv_bfloat16* band_img = img + band * g.band_rows * g.Wp * g.ldc;
  const __nv_bfloat16* band_dys = dys + band * g.P16;

  // Zeros once: the image's padding (the rows of the piece outside the image too) and dy's columns
  // past each band's last pixel stay zero.
  for (int e = tid; e < (img_values + dy_values) / 2; e += kDwThreads) reinterpret_cast<uint32_t*>(img)[e] = 0u;
  float acc[kDwMaxKernel][2][4] = {};
  __shared__ float bias_sum[kDwMaxChannels];  // this block's share of dbias (its rows o = s, s + sets, ..)
  for (int o = tid; o < g.O; o += kDwThreads) bias_sum[o] = 0.0f;
  const int first = group * g.images_per_block, last = min(g.N, first + g.images_per_block);
  for (int n = first; n < last; ++n) {
    __syncthreads();  // the zeros, or the previous image's multiplies, are done
    // As 10.6 stages: a thread a pair of channels of one pixel (a walk over [C / 2][the input rows
    // h0 .. h1 - 1 the piece reads][W]); padded row h + pad is the piece's row h + pad - r0.
    const float* x = g.x + size_t(n) * g.C * g.H * g.W;
    const int h0 = max(0, r0 - g.pad), h1 = min(g.H, r0 - g.pad + g.Hp);
    stage_in_rounds<4, float2>(
        StagingWalk(tid, kDwThreads, h1 - h0, g.W), g.C / 2,
        [&](const StagingWalk& at, float2& v) {
          const float* from = x + (size_t(2 * at.a) * g.H + h0 + at.b) * g.W + at.c;
          v = make_float2(__ldg(from), __ldg(from + g.H * g.W));
          return ((h0 + at.b + g.pad - r0) * g.Wp + at.c + g.pad) * g.ldc + 2 * at.a;
        },
        [&](int to, float2 v) { *reinterpret_cast<__nv_bfloat162*>(img + to) = __floats2bfloat162_rn(v.x, v.y); });
    // dy's pixel q of band b (a walk over [O][bands][band_pixels]) is the piece's pixel b band_pixels
    // + q, staged from b P16 on; the last band may be shorter.
    const float* dy = g.dy + size_t(n) * g.O * P + size_t(r0) * g.OW;
    stage_in_rounds<8, float>(
        StagingWalk(tid, kDwThreads, g.bands, band_pixels), g.O,
        [&](const StagingWalk& at, float& v) {
          const int p = at.b * band_pixels + at.c;
          if (p >= rows * g.OW) return -1;
          v = __ldg(dy + size_t(at.a) * P + p);
          return at.a * g.ldp + at.b * g.P16 + at.c;
        },
        [&](int to, float v) { dys[to] = __float2bfloat16_rn(v); });
    // dbias's share of this image's piece, from dy's FP32 values, spread over the blocks of the piece:
    // the block of set s takes the rows o = s, s + sets, ..; its warps take every 8th of them (lanes
    // over the pixels, then a fixed tree across the lanes); added to the block's sum in image order.
    for (int o = blockIdx.y + gridDim.y * warp; o < g.O; o += gridDim.y * kDwWarps) {
      float sum = 0.0f;
      for (int p = lane; p < rows * g.OW; p += 32) sum += __ldg(dy + size_t(o) * P + p);
      for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      if (lane == 0) bias_sum[o] += sum;
    }
    __syncthreads();
    if (active) accumulate_image(gb, band_img, band_dys, i, o0, c0, acc);
  }
  __syncthreads();
  for (int o = blockIdx.y + gridDim.y * tid; o < g.O; o += gridDim.y * kDwThreads)
    g.bias_partial[blockIdx.x * g.O + o] = bias_sum[o];
  if (g.bands > 1) {
    // The warps of a tile and tap row add their bands' sums in band order (band 0's warp writes).
    float* sums = reinterpret_cast<float*>(dw_smem + course::round_up(size_t(img_values + dy_values) * 2, size_t(16)));
    const auto at = [&](int w, int j, int r) { return sums + ((size_t(w) * g.k + j) * 8 + r) * 32 + lane; };
#pragma unroll
    for (int j = 0; j < kDwMaxKernel; ++j) {  // unrolled: acc stays in registers
      if (j >= g.k) break;
#pragma unroll
      for (int r = 0; r < 8; ++r) *at(warp, j, r) = acc[j][r / 4][r % 4];
    }
    __syncthreads();
    if (!active || band != 0) return;
#pragma unroll
    for (int j = 0; j < kDwMaxKernel; ++j) {
      if (j >= g.k) break;
#pragma unroll
      for (int r = 0; r < 8; ++r) {
        float sum = 0.0f;
        for (int b = 0; b < g.bands; ++b) sum += *at(warp + b * per_band, j, r);
        acc[j][r / 4][r % 4] = sum;
      }
    }
  }
  if (!active) return;
  // This block's slice: partial[blockIdx.x][i k + j][o][c].
#pragma unroll
  for (int j = 0; j < kDwMaxKernel; ++j) {
    if (j >= g.k) break;
    float* slice = g.partial + (size_t(blockIdx.x) * g.k * g.k + i * g.k + j) * g.O * g.C;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int o = o0 + gq + 8 * h, c = c0 + 8 * nt + 2 * t;
        slice[o * g.C + c] = acc[j][nt][2 * h];
        slice[o * g.C + c + 1] = acc[j][nt][2 * h + 1];
      }
  }
#endif
}

// dW[o][c][i][j] = the blocks' slices added in a fixed order (the same bits every run). A block takes
// 32 neighbouring entries e of the slices (tap, o, c order: a warp reads 128 contiguous bytes a
// slice) and kSumParts warps: warp p adds the slices p, p + kSumParts, ..., then warp 0 adds the
// parts in order. One thread an entry adding all the slices in a row kept one load in flight and
// used 10 of the 132 SMs for a 16-channel layer. The entries past the weights are dbias's.
constexpr int kSumParts = 8;
__global__ void __launch_bounds__(32 * kSumParts)
    sum_dw_slices_kernel(const float* __restrict__ partial, const float* __restrict__ bias_partial, int slices, int O,
                         int C, int k, float* __restrict__ dW, float* __restrict__ dbias) {
  __shared__ float parts[kSumParts][32];
  const int weights = O * C * k * k, lane = threadIdx.x % 32, part = threadIdx.x / 32;
  const int e = blockIdx.x * 32 + lane;
  float sum = 0.0f;
  if (e < weights) {
#pragma unroll 4
    for (int z = part; z < slices; z += kSumParts) sum += partial[size_t(z) * weights + e];
  } else if (e < weights + O) {
    for (int z = part; z < slices; z += kSumParts) sum += bias_partial[z * O + (e - weights)];
  }
  parts[part][lane] = sum;
  __syncthreads();
  if (part != 0 || e >= weights + O) return;
  float total = 0.0f;
#pragma unroll
  for (int p = 0; p < kSumParts; ++p) total += parts[p][lane];
  if (e >= weights) {
    if (dbias) dbias[e - weights] = total;
    return;
  }
  const int tap = e / (O * C), r = e - tap * O * C, o = r / C, c = r - o * C;
  dW[(size_t(o) * C + c) * k * k + tap] = total;
}

namespace {

// The slices: a group of images_per_block images, cut into the plan's pieces.
int dw_slices(const host_layers::ConvShape& s, int images_per_block, const DwPlan& d) {
  return course::ceil_div(s.batch, images_per_block) * d.pieces;
}

DwPlan dw_plan_of(const host_layers::ConvShape& s) {
  return dw_plan(s.out_channels, s.in_channels, s.kernel_h, s.out_h(), s.out_w());
}

size_t dw_block_bytes(const host_layers::ConvShape& s) {
  return dw_smem_bytes(s.width, s.pad, s.in_channels, s.out_channels, s.kernel_h, dw_plan_of(s));
}

}  // namespace

cudaFuncAttributes conv_mma_dw_kernel_attributes() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, conv_mma_dw_kernel));
  return attributes;
}

}  // namespace detail

// ---- given: what runs, the workspace and the launches --------------------------------------------
std::string conv_mma_weight_problem(const host_layers::ConvShape& s) {
  if (s.stride != 1 || s.kernel_h != s.kernel_w || s.kernel_h > detail::kDwMaxKernel || s.pad < 0 ||
      s.pad > s.kernel_h - 1)
    return "needs stride 1, a square kernel of at most 7 x 7 and 0 <= pad <= kernel - 1";
  if (s.in_channels % 16 != 0 || s.out_channels % 16 != 0 || s.out_channels > detail::kDwMaxChannels)
    return "needs input and output channels in multiples of 16, at most 128 output channels";
  if (s.out_h() * s.out_w() > detail::kDwMaxPixels && detail::dw_plan_of(s).bands == 1)
    return "more than 256 output pixels an image, and no warps free to cut it into bands ((O / 16) (C / 16) k >= 8)";
  if (detail::dw_block_bytes(s) > 200 * 1024) return "the image and dy need more than 200 KiB of shared memory";
  return "";
}

size_t conv_mma_weight_workspace_floats(const host_layers::ConvShape& s, int images_per_block) {
  if (images_per_block < 1)
    throw course::Error("conv_mma_weight_workspace_floats: images_per_block must be at least 1, got " +
                        std::to_string(images_per_block));
  return size_t(detail::dw_slices(s, images_per_block, detail::dw_plan_of(s))) * (s.weight_size() + s.out_channels);
}

void conv2d_backward_weight_mma(const host_layers::ConvShape& s, const float* x, const float* dy, float* dW,
                                float* dbias, float* workspace, cudaStream_t stream, int images_per_block) {
  detail::check_conv_mma("conv2d_backward_weight_mma", s, true);
  const std::string why = conv_mma_weight_problem(s);
  if (!why.empty()) throw course::Error("conv2d_backward_weight_mma: " + why);
  if (images_per_block < 1)
    throw course::Error("conv2d_backward_weight_mma: images_per_block must be at least 1, got " +
                        std::to_string(images_per_block));
  const int OH = s.out_h(), OW = s.out_w();
  const detail::DwPlan d = detail::dw_plan_of(s);
  const int slices = detail::dw_slices(s, images_per_block, d);
  const detail::TiledWeightGrad g{x, dy, workspace, workspace + size_t(slices) * s.weight_size(), s.batch,
                                  s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad, OH, OW,
                                  d.piece_rows + s.kernel_h - 1, s.width + 2 * s.pad, s.in_channels + 8, d.band16,
                                  d.bands * d.band16 + 8, images_per_block, d.band_rows, d.bands, d.piece_rows,
                                  d.pieces};
  const size_t bytes = detail::dw_block_bytes(s);
  CUDA_CHECK(cudaFuncSetAttribute(detail::conv_mma_dw_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  detail::conv_mma_dw_kernel<<<dim3(slices, d.sets), detail::kDwThreads, bytes, stream>>>(g);
  CUDA_CHECK(cudaGetLastError());
  const int total = int(s.weight_size()) + s.out_channels;
  detail::sum_dw_slices_kernel<<<(total + 31) / 32, 32 * detail::kSumParts, 0, stream>>>(
      workspace, workspace + size_t(slices) * s.weight_size(), slices, s.out_channels, s.in_channels, s.kernel_h, dW,
      dbias);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace tensor_cores
