// Lesson 03, step 03.2: add a per-channel bias to an NCHW tensor, with a 2-D grid.
// y is viewed as rows = batch*channels planes of `plane` = H*W contiguous values:
//   grid y (blockIdx.y)           -> which plane (row = n*channels + c)
//   grid x (blockIdx.x, threadIdx.x) -> which position p inside the plane
// Every thread of a block works in the same plane, so all of them add the same bias[c]:
// no division per element to find the channel, and neighbouring threads touch
// neighbouring addresses (coalesced).
#include <algorithm>

#include "course/cuda_check.hpp"
#include "first_kernels.hpp"

namespace first_kernels {

namespace {

__global__ void bias_add_nchw_kernel(float* y, const float* bias, int channels, int plane, size_t rows) {
  // Grid-stride in both directions: gridDim.y is capped at 65535 and gridDim.x at kMaxBlocks.
  for (size_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const float b = bias[row % channels];
    float* y_row = y + row * plane;
    for (size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < size_t(plane); p += size_t(gridDim.x) * blockDim.x)
      y_row[p] += b;
  }
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
