// Lesson 10 (given): what 10.9's count decides: how 10.6 and 10.7 split their grids to fill one
// wave of the current GPU (tensor_cores.hpp, section 10.9). blocks_per_sm is yours (exercises/one_wave.cpp).
#include <algorithm>
#include <string>

#include "conv_mma_tiled.cuh"
#include "conv_mma_tiled_weight.cuh"
#include "course/arithmetic.hpp"
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

// The fewest parts (1, 2, 4, ..) whose grid of N x bands x parts blocks gives every SM a block, as
// long as the split still fits in one wave. Every part stages the whole image again: a split pays for
// SMs that would sit idle, and beyond that only adds staging.
int conv_mma_tiled_parts(const host_layers::ConvShape& s, bool backward_data, bool stats) {
  const std::string why = conv_mma_tiled_problem(s);
  if (!why.empty()) throw course::Error("conv_mma_tiled_parts: " + why);
  // The pass's own convolution: the input gradient's runs from dy to dx with the flipped padding.
  const int O = backward_data ? s.in_channels : s.out_channels;
  const int C = backward_data ? s.out_channels : s.in_channels;
  const int pad = backward_data ? s.kernel_h - 1 - s.pad : s.pad;
  const int W = backward_data ? s.out_w() : s.width;
  const int out_h = backward_data ? s.height : s.out_h(), out_w = backward_data ? s.width : s.out_w();
  const int band = detail::tiled_band_rows(out_h, out_w), bands = course::ceil_div(out_h, band);
  const SmLimits sm = sm_limits();
  int best = 1;
  for (int parts = 2; O % (8 * parts) == 0 && s.batch * bands * best < sm.sms; parts *= 2) {
    const cudaFuncAttributes kernel = detail::conv_mma_tiled_kernel_attributes(O / parts / 8, stats && !backward_data);
    const size_t bytes = detail::tiled_smem_bytes(band + s.kernel_h - 1, W + 2 * pad, C + 8, s.kernel_h, O / parts);
    const int per_sm = blocks_per_sm(sm, {detail::kTiledConvThreads, kernel.numRegs, bytes + kernel.sharedSizeBytes});
    if (per_sm > 0 && s.batch * bands * parts <= per_sm * sm.sms) best = parts;  // else two waves: slower again
  }
  return best;
}

// The fewest images a block such that ceil(N / images) groups x pieces x sets of blocks fit in one wave.
int conv_mma_weight_images_per_block(const host_layers::ConvShape& s) {
  const std::string why = conv_mma_weight_problem(s);
  if (!why.empty()) throw course::Error("conv_mma_weight_images_per_block: " + why);
  const cudaFuncAttributes kernel = detail::conv_mma_dw_kernel_attributes();
  const SmLimits sm = sm_limits();
  const detail::DwPlan d = detail::dw_plan(s.out_channels, s.in_channels, s.kernel_h, s.out_h(), s.out_w());
  const size_t bytes = detail::dw_smem_bytes(s.width, s.pad, s.in_channels, s.out_channels, s.kernel_h, d);
  const int per_sm = blocks_per_sm(sm, {detail::kDwThreads, kernel.numRegs, bytes + kernel.sharedSizeBytes});
  const int groups_at_once = std::max(1, std::max(per_sm, 1) * sm.sms / (d.pieces * d.sets));
  return std::max(1, course::ceil_div(s.batch, groups_at_once));
}

}  // namespace tensor_cores
