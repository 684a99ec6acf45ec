#include "launch_demo.hpp"

#include "course/cuda_check.hpp"

namespace lesson03 {

namespace {

__global__ void fill_kernel(float* y, size_t n, float value) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = value;  // one element per thread: the grid covers n exactly
}

}  // namespace

void fill_with_block_size(float* y, size_t n, float value, int threads_per_block, bool check) {
  const size_t blocks = (n + threads_per_block - 1) / threads_per_block;
  fill_kernel<<<static_cast<unsigned>(blocks), threads_per_block>>>(y, n, value);
  if (check) CUDA_CHECK_LAUNCH();
}

}  // namespace lesson03
