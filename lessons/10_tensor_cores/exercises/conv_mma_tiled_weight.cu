// Lesson 10, step 10.7: the weight gradient on the Tensor Cores: per tap a GEMM of dy and the shifted
// image over the pixels, on 10.6's image in shared memory. YOUR FILE: accumulate_image (marked TODO);
// the staging, the slices (dbias's too), their fixed-order sum and the launches are given below
// (conv_mma_tiled_weight.cuh says how they fit).
#include <string>

#include "conv_mma_tiled_weight.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace detail {

#if COURSE_WMMA
__device__ void accumulate_image(const TiledWeightGrad& g, const __nv_bfloat16* img, const __nv_bfloat16* dys, int i,
                                 int o0, int c0, float (&acc)[kDwMaxKernel][2][4]) {
  // TODO(10.7): for k0 = 0, 16, .. below P16: this warp's A fragment of dys (rows o0 + g, + 8; columns
  // k0 + 2t ..), this lane's ldmatrix row (pixel k0 + lane % 16, or 0 past the image; channels
  // c0 + 8 (lane / 16)), then for each tap j < k: ldmatrix_x4_trans at that row moved by j pixels,
  // and two mma_bf16_16816 into acc[j][0] and acc[j][1]. Addresses: conv_mma_tiled_weight.cuh.
  (void)g, (void)img, (void)dys, (void)i, (void)o0, (void)c0, (void)acc;
}
#endif

// ---- given: the kernels --------------------------------------------------------------------------
// Before the blocks start, each image and its dy are written once, as BF16, in the layouts the blocks
// keep in shared memory (a block then copies them 16 bytes at a time, and the k blocks that share an
// image do not convert it k times): x_bf16[n] = the padded image, channels innermost (10.6's layout);
// dy_bf16[n] = dy with the pixels innermost, zeros past the last pixel. On the way, each row (n, o) of
// dy is summed in FP32 for dbias (bias_rows[n][o]: lanes over the pixels, a fixed tree across them).
__global__ void __launch_bounds__(kDwThreads) dw_prepare_kernel(TiledWeightGrad g) {
#if COURSE_WMMA
  extern __shared__ __align__(16) unsigned char prep_smem[];
  float* plane = reinterpret_cast<float*>(prep_smem);  // image n, as it is in x (C x H x W)
  const int n = blockIdx.x, tid = threadIdx.x, warp = tid / 32, lane = tid % 32, P = g.OH * g.OW;
  const float* x = g.x + size_t(n) * g.C * g.H * g.W;
  for (int e = tid; e < g.C * g.H * g.W; e += kDwThreads) plane[e] = __ldg(x + e);
  __syncthreads();
  __nv_bfloat16* img = g.x_bf16 + size_t(n) * g.Hp * g.Wp * g.ldc;
  for (int e = tid; e < g.Hp * g.Wp * g.ldc; e += kDwThreads) {  // writes in order: coalesced
    const int pixel = e / g.ldc, c = e - pixel * g.ldc, hp = pixel / g.Wp, wp = pixel - hp * g.Wp;
    const int h = hp - g.pad, w = wp - g.pad;
    const bool inside = c < g.C && unsigned(h) < unsigned(g.H) && unsigned(w) < unsigned(g.W);
    img[e] = __float2bfloat16_rn(inside ? plane[(c * g.H + h) * g.W + w] : 0.0f);
  }
  const float* dy = g.dy + size_t(n) * g.O * P;
  __nv_bfloat16* dys = g.dy_bf16 + size_t(n) * g.O * g.ldp;
  for (int o = warp; o < g.O; o += kDwThreads / 32) {
    float sum = 0.0f;
    for (int p = lane; p < g.ldp; p += 32) {
      const float v = p < P ? __ldg(dy + size_t(o) * P + p) : 0.0f;
      dys[o * g.ldp + p] = __float2bfloat16_rn(v);
      sum += v;
    }
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) g.bias_rows[n * g.O + o] = sum;
  }
#endif
}

__global__ void __launch_bounds__(kDwThreads) conv_mma_dw_kernel(TiledWeightGrad g) {
#if COURSE_WMMA
  extern __shared__ __align__(16) unsigned char dw_smem[];
  __nv_bfloat16* img = reinterpret_cast<__nv_bfloat16*>(dw_smem);
  const int img_values = g.Hp * g.Wp * g.ldc, dy_values = g.O * g.ldp;
  __nv_bfloat16* dys = img + img_values;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, t = lane % 4;
  const int i = blockIdx.x, group = blockIdx.y;
  const int o_tiles = g.O / 16, active = warp < o_tiles * (g.C / 16);
  const int o0 = 16 * (warp % o_tiles), c0 = 16 * (warp / o_tiles);
  float acc[kDwMaxKernel][2][4] = {};
  const int first = group * kDwImagesPerBlock, last = min(g.N, first + kDwImagesPerBlock);
  for (int n = first; n < last; ++n) {
    if (n > first) __syncthreads();  // the previous image's multiplies are done
    // Both tiles as they are in global memory: 16-byte copies (img_values and dy_values are multiples of 8).
    const uint4* from_img = reinterpret_cast<const uint4*>(g.x_bf16 + size_t(n) * img_values);
    const uint4* from_dy = reinterpret_cast<const uint4*>(g.dy_bf16 + size_t(n) * dy_values);
    for (int e = tid; e < img_values / 8; e += kDwThreads) reinterpret_cast<uint4*>(img)[e] = __ldg(from_img + e);
    for (int e = tid; e < dy_values / 8; e += kDwThreads) reinterpret_cast<uint4*>(dys)[e] = __ldg(from_dy + e);
    __syncthreads();
    if (active) accumulate_image(g, img, dys, i, o0, c0, acc);
  }
  if (!active) return;
  // This block's slice: partial[group][i k + j][o][c].
#pragma unroll
  for (int j = 0; j < kDwMaxKernel; ++j) {
    if (j >= g.k) break;
    float* slice = g.partial + (size_t(group) * g.k * g.k + i * g.k + j) * g.O * g.C;
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

// dW[o][c][i][j] = the slices of every group added in the order 0, 1, ... (the same bits every run);
// e runs in the slices' order (tap, o, c), so neighbouring threads read neighbouring floats. The
// threads past the weights add up dbias's rows the same way, image by image.
__global__ void sum_dw_slices_kernel(const float* __restrict__ partial, const float* __restrict__ bias_rows,
                                     int groups, int N, int O, int C, int k, float* __restrict__ dW,
                                     float* __restrict__ dbias) {
  const int weights = O * C * k * k;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < weights + O; e += gridDim.x * blockDim.x) {
    float sum = 0.0f;
    if (e >= weights) {
      const int o = e - weights;
      for (int n = 0; n < N; ++n) sum += bias_rows[n * O + o];
      if (dbias) dbias[o] = sum;
      continue;
    }
    for (int z = 0; z < groups; ++z) sum += partial[size_t(z) * weights + e];
    const int tap = e / (O * C), r = e - tap * O * C, o = r / C, c = r - o * C;
    dW[(size_t(o) * C + c) * k * k + tap] = sum;
  }
}

namespace {

int dw_groups(const host_layers::ConvShape& s) { return (s.batch + kDwImagesPerBlock - 1) / kDwImagesPerBlock; }

struct DwSizes {
  int P16, ldp, Hp, Wp, ldc;
  size_t img_values, dy_values;  // BF16 values of one image's tile, of one image's dy tile
};
DwSizes dw_sizes(const host_layers::ConvShape& s) {
  DwSizes z;
  z.P16 = (s.out_h() * s.out_w() + 15) / 16 * 16, z.ldp = z.P16 + 8;
  z.Hp = s.height + 2 * s.pad, z.Wp = s.width + 2 * s.pad, z.ldc = s.in_channels + 8;
  z.img_values = size_t(z.Hp) * z.Wp * z.ldc, z.dy_values = size_t(s.out_channels) * z.ldp;
  return z;
}
size_t dw_smem_bytes(const host_layers::ConvShape& s) {
  const DwSizes z = dw_sizes(s);
  return (z.img_values + z.dy_values) * sizeof(__nv_bfloat16);
}
size_t prepare_smem_bytes(const host_layers::ConvShape& s) {
  return size_t(s.in_channels) * s.height * s.width * sizeof(float);
}

}  // namespace

}  // namespace detail

// ---- given: what runs, the workspace and the launches --------------------------------------------
std::string conv_mma_weight_problem(const host_layers::ConvShape& s) {
  if (s.stride != 1 || s.kernel_h != s.kernel_w || s.kernel_h > detail::kDwMaxKernel || s.pad < 0 ||
      s.pad > s.kernel_h - 1)
    return "needs stride 1, a square kernel of at most 7 x 7 and 0 <= pad <= kernel - 1";
  if (s.in_channels % 16 != 0 || s.out_channels % 16 != 0 || (s.in_channels / 16) * (s.out_channels / 16) > 8)
    return "needs input and output channels in multiples of 16, (C / 16) (O / 16) <= 8";
  if (s.out_h() * s.out_w() > 256) return "more than 256 output pixels an image";
  if (detail::dw_smem_bytes(s) > 200 * 1024 || detail::prepare_smem_bytes(s) > 200 * 1024)
    return "an image and its dy need more than 200 KiB of shared memory";
  return "";
}

// The workspace: the groups' slices and dbias's rows (FP32), then the BF16 tiles of every image.
size_t conv_mma_weight_workspace_floats(const host_layers::ConvShape& s) {
  const detail::DwSizes z = detail::dw_sizes(s);
  const size_t floats = size_t(detail::dw_groups(s)) * s.weight_size() + size_t(s.batch) * s.out_channels;
  const size_t bf16 = size_t(s.batch) * (z.img_values + z.dy_values);
  return (floats + 3) / 4 * 4 + (bf16 + 1) / 2;  // the BF16 part starts 16-byte aligned
}

void conv2d_backward_weight_mma(const host_layers::ConvShape& s, const float* x, const float* dy, float* dW,
                                float* dbias, float* workspace, cudaStream_t stream) {
  detail::check_conv_mma("conv2d_backward_weight_mma", s, true);
  const std::string why = conv_mma_weight_problem(s);
  if (!why.empty()) throw course::Error("conv2d_backward_weight_mma: " + why);
  const detail::DwSizes z = detail::dw_sizes(s);
  const int groups = detail::dw_groups(s);
  float* partial = workspace;
  float* bias_rows = partial + size_t(groups) * s.weight_size();
  const size_t floats = size_t(groups) * s.weight_size() + size_t(s.batch) * s.out_channels;
  __nv_bfloat16* x_bf16 = reinterpret_cast<__nv_bfloat16*>(workspace + (floats + 3) / 4 * 4);
  __nv_bfloat16* dy_bf16 = x_bf16 + size_t(s.batch) * z.img_values;
  const detail::TiledWeightGrad g{x, dy, partial, bias_rows, x_bf16, dy_bf16, s.batch, s.in_channels, s.height,
                                  s.width, s.out_channels, s.kernel_h, s.pad, s.out_h(), s.out_w(), z.Hp, z.Wp, z.ldc,
                                  z.P16, z.ldp};
  const size_t prep = detail::prepare_smem_bytes(s), bytes = detail::dw_smem_bytes(s);
  CUDA_CHECK(cudaFuncSetAttribute(detail::dw_prepare_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(prep)));
  detail::dw_prepare_kernel<<<s.batch, detail::kDwThreads, prep, stream>>>(g);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaFuncSetAttribute(detail::conv_mma_dw_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  detail::conv_mma_dw_kernel<<<dim3(s.kernel_h, groups), detail::kDwThreads, bytes, stream>>>(g);
  CUDA_CHECK(cudaGetLastError());
  const int total = int(s.weight_size()) + s.out_channels;
  detail::sum_dw_slices_kernel<<<(total + 255) / 256, 256, 0, stream>>>(partial, bias_rows, groups, s.batch,
                                                                        s.out_channels, s.in_channels, s.kernel_h, dW,
                                                                        dbias);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace tensor_cores
