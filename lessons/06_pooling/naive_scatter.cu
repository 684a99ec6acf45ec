// Lesson 06, read-only: scatter formulations of the max-pool backward (see naive_scatter.hpp).
#include <cstdint>

#include "course/cuda_check.hpp"
#include "naive_scatter.hpp"
#include "pool_kernels.cuh"

namespace pooling {

namespace {

__global__ void scatter_atomic_kernel(const int* __restrict__ argmax, const float* __restrict__ dy, float* dx,
                                      int64_t outputs) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < outputs;
       o += int64_t(gridDim.x) * blockDim.x)
    atomicAdd(&dx[argmax[o]], dy[o]);
}

// One window offset (kh, kw) per launch. argmax[o] - corner(o) tells where in its window the
// maximum of output o sits.
__global__ void scatter_offset_kernel(const int* __restrict__ argmax, const float* __restrict__ dy, float* dx,
                                      int64_t outputs, int H, int W, int OH, int OW, int stride, int kh,
                                      int kw) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < outputs;
       o += int64_t(gridDim.x) * blockDim.x) {
    const int ow = static_cast<int>(o % OW);
    const int oh = static_cast<int>(o / OW % OH);
    const int64_t plane = o / (int64_t(OH) * OW);
    const int64_t target = (plane * H + oh * stride + kh) * W + ow * stride + kw;
    if (argmax[o] == target) dx[target] += dy[o];
  }
}

}  // namespace

void maxpool_backward_scatter_atomic(const PoolShape& s, const int* argmax, const float* dy, float* dx) {
  check_shape(s, "maxpool_backward_scatter_atomic");
  CUDA_CHECK(cudaMemsetAsync(dx, 0, s.input_size() * sizeof(float)));
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  scatter_atomic_kernel<<<blocks_for(outputs), kThreads>>>(argmax, dy, dx, outputs);
  CUDA_CHECK_LAUNCH();
}

void maxpool_backward_scatter_host_loop(const PoolShape& s, const int* argmax, const float* dy, float* dx) {
  check_shape(s, "maxpool_backward_scatter_host_loop");
  CUDA_CHECK(cudaMemsetAsync(dx, 0, s.input_size() * sizeof(float)));
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  for (int kh = 0; kh < s.window; ++kh)
    for (int kw = 0; kw < s.window; ++kw) {
      scatter_offset_kernel<<<blocks_for(outputs), kThreads>>>(argmax, dy, dx, outputs, s.height, s.width,
                                                               s.out_h(), s.out_w(), s.stride, kh, kw);
      CUDA_CHECK_LAUNCH();
    }
}

}  // namespace pooling
