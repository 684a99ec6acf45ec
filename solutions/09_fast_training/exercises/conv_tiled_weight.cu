// Lesson 09, step 09.11: the tiled weight gradient's multiply-adds.
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
  const int width = segs * kTileP;
  for (int oh = 0; oh < rows; ++oh) {
    const float* x_row = xs + (cc * sh + oh + i) * sw;
    const float* dy_row = dys + oh * width * kDyStride + og * kTileO;
    for (int seg = 0; seg < segs; ++seg) {
      // kTileP outputs of the row need kTileP + KS - 1 inputs: read once, used KS times each.
      float x[kTileP + KS - 1];
#pragma unroll
      for (int p = 0; p < kTileP + KS - 1; ++p) x[p] = x_row[seg * kTileP + p];
#pragma unroll
      for (int p = 0; p < kTileP; ++p) {
        const float4 d4 = *reinterpret_cast<const float4*>(dy_row + (seg * kTileP + p) * kDyStride);
        const float d[kTileO] = {d4.x, d4.y, d4.z, d4.w};
#pragma unroll
        for (int o = 0; o < kTileO; ++o)
#pragma unroll
          for (int j = 0; j < KS; ++j) acc[o][j] = fmaf(d[o], x[p + j], acc[o][j]);
      }
    }
  }
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
