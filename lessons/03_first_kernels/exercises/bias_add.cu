// Lesson 03, step 03.2: add a per-channel bias to an NCHW tensor, with a 2-D grid. YOUR FILE.
// y is viewed as rows = batch*channels planes of `plane` = H*W contiguous values:
//   grid y (blockIdx.y)              -> which plane (row = n*channels + c)
//   grid x (blockIdx.x, threadIdx.x) -> which position p inside the plane
// The launcher at the bottom is written (it caps gridDim.y at 65535 and gridDim.x at
// kMaxBlocks); fill in the kernel body.
#include <algorithm>

#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void bias_add_nchw_kernel(float* y, const float* bias, int channels, int plane, size_t rows) {
  // TODO(03.2): in place, for every row < rows (row = n*channels + c) and p < plane:
  //   y[row * plane + p] += bias[row % channels]
  // each element exactly once. The grid may be smaller than the work in BOTH directions: more
  // than 65535 rows (gridDim.y is capped) and planes larger than kGridCapacity (gridDim.x is
  // capped), so cover both with grid-stride loops. Index arithmetic in size_t.
}

}  // namespace

void bias_add_nchw(float* y, const float* bias, int batch, int channels, int plane) {
  if (batch <= 0 || channels <= 0 || plane <= 0) return;
  const size_t rows = size_t(batch) * channels;
  const dim3 grid(blocks_for(size_t(plane)), static_cast<unsigned>(std::min<size_t>(rows, kMaxPlanesInGrid)));
  bias_add_nchw_kernel<<<grid, kThreadsPerBlock>>>(y, bias, channels, plane, rows);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernels
