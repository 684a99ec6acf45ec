// Lesson 09, step 09.10: the tiled direct convolution's multiply-adds. YOUR FILE: accumulate_chunk
// (marked TODO); the launches at the bottom are written for you.
//   out[o][oh][ow] += sum over the chunk's channels cc and i, j < k of
//                     ws[cc][i][j][o] * xs[cc][oh + i][ow + j]
// The block (conv_tiled.cuh) has put a chunk of the image, padding included, and of the weights
// into shared memory; this adds the chunk to the thread's kTileO x kTileP outputs in registers.
#include "conv_tiled.cuh"
#include "course/cuda_check.hpp"

namespace fast_training {

namespace detail {

template <int KS>
__device__ void accumulate_chunk(const float* ws, const float* xs, int sh, int sw, int oh, int ow0, int og,
                                 float (&acc)[kTileO][kTileP]) {
  // TODO(09.10): for each of the chunk's kChunkC channels cc and each kernel row i: read the
  // kTileP + KS - 1 inputs xs[cc][oh + i][ow0 ...] into registers once; then for each j < KS
  // read the thread's kTileO weights ws[cc][i][j][og * kTileO ...] (one float4) and add
  // weight[o] * input[p + j] to acc[o][p] for every o < kTileO, p < kTileP.
  (void)ws, (void)xs, (void)sh, (void)sw, (void)oh, (void)ow0, (void)og, (void)acc;
}

}  // namespace detail

// ---- given: the launches ------------------------------------------------------------------------
namespace {

// The kernel for a plan's block size (tiled_plan picks 64, 128 or 256 threads).
template <int KS>
void (*tiled_kernel_for(int threads))(detail::TiledConvArgs) {
  if (threads == 64) return detail::conv_tiled_kernel<KS, 64>;
  return threads == 128 ? detail::conv_tiled_kernel<KS, 128> : detail::conv_tiled_kernel<KS, detail::kTiledThreads>;
}

void launch_tiled(detail::TiledPlan plan, int k, const float* in, const float* wt, const float* bias, float* out,
                  cudaStream_t stream) {
  plan.args.in = in, plan.args.wt = wt, plan.args.bias = bias, plan.args.out = out;
  const auto kernel = k == 3 ? tiled_kernel_for<3>(plan.threads) : tiled_kernel_for<5>(plan.threads);
  // Above 48 KiB a kernel must ask for its dynamic shared memory (conv_tiled_problem checked the GPU has it).
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.smem_bytes)));
  kernel<<<plan.grid, plan.threads, plan.smem_bytes, stream>>>(plan.args);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void conv2d_forward_tiled(const ConvShape& s, const float* x, const float* tiled_weights, const float* bias, float* y,
                          cudaStream_t stream) {
  detail::require_tiled(s, "conv2d_forward_tiled");
  const int k = s.kernel_h;
  launch_tiled(detail::tiled_plan(s.batch, s.in_channels, s.height, s.width, s.out_channels, k, s.pad, s.out_h(),
                                  s.out_w()),
               k, x, tiled_weights, bias, y, stream);
}

void conv2d_backward_data_tiled(const ConvShape& s, const float* tiled_weights, const float* dy, float* dx,
                                cudaStream_t stream) {
  detail::require_tiled(s, "conv2d_backward_data_tiled");
  const int k = s.kernel_h;
  const size_t forward_floats = size_t(s.in_channels) * k * k * ((s.out_channels + 3) / 4 * 4);
  launch_tiled(detail::tiled_plan(s.batch, s.out_channels, s.out_h(), s.out_w(), s.in_channels, k, k - 1 - s.pad,
                                  s.height, s.width),
               k, dy, tiled_weights + forward_floats, nullptr, dx, stream);
}

}  // namespace fast_training
