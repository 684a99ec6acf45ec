// Lesson 09, step 09.11: the tiled weight gradient's multiply-adds. YOUR FILE: accumulate_weight_unit
// (marked TODO); the launch at the bottom is written for you.
//   acc[o][j] += sum over the unit's output pixels (oh, ow) of dys[oh][ow][o] * xs[cc][oh + i][ow + j]
// The block (conv_tiled_weight.cuh) has put one unit of x, padding included, and of dy into shared
// memory; this adds it to the thread's kTileO x k sums of dW[o][cc][i][j] in registers.
#include "conv_implicit.cuh"
#include "conv_tiled_weight.cuh"
#include "course/cuda_check.hpp"

namespace fast_training {

namespace detail {

template <int KS>
__device__ void accumulate_weight_unit(const float* xs, const float* dys, int sh, int sw, int rows, int segs, int cc,
                                       int i, int og, float (&acc)[kTileO][KS]) {
  // TODO(09.11): for each output row oh < rows and each of its segs segments of kTileP outputs:
  // read the kTileP + KS - 1 inputs xs[cc][oh + i][seg * kTileP ...] into registers once; then for
  // each output p of the segment read the thread's kTileO values of dy (one float4 at
  // dys[oh][seg * kTileP + p][og * kTileO], rows of kDyStride floats) and add dy[o] * input[p + j]
  // to acc[o][j] for every o < kTileO, j < KS.
  (void)xs, (void)dys, (void)sh, (void)sw, (void)rows, (void)segs, (void)cc, (void)i, (void)og, (void)acc;
}

}  // namespace detail

// ---- given: the launches ------------------------------------------------------------------------
void conv2d_backward_weight_tiled(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                                  float* workspace, cudaStream_t stream) {
  detail::require_tiled(s, "conv2d_backward_weight_tiled");
  detail::TiledWeightPlan plan = detail::tiled_weight_plan(s);
  plan.args.x = x, plan.args.dy = dy, plan.args.partial = workspace;
  const auto kernel = s.kernel_h == 3 ? detail::conv_tiled_weight_kernel<3> : detail::conv_tiled_weight_kernel<5>;
  // Above 48 KiB a kernel must ask for its dynamic shared memory (conv_tiled_problem checked the GPU has it).
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.smem_bytes)));
  kernel<<<plan.grid, plan.block, plan.smem_bytes, stream>>>(plan.args);
  CUDA_CHECK_LAUNCH();
  detail::sum_weight_slices(workspace, plan.slices, s.out_channels, s.in_channels * s.kernel_h * s.kernel_w, dW, dbias,
                            stream);
}

}  // namespace fast_training
