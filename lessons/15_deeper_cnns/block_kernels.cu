// Lesson 15 (given): a strided convolution's dy spread out for its input gradient (deeper_gpu_layers.hpp).
#include "course/cuda_check.hpp"
#include "deeper_gpu_layers.hpp"
#include "fast_div.cuh"       // lesson 09's FastDiv
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

// Divides by d with the hardware's division: for tensors of 2^31 values and more.
struct WideDiv {
  size_t d;
  __device__ size_t div(size_t n) const { return n / d; }
};

// A thread a value of `spread`: dy's value where both coordinates fall on the stride, else 0. Index and
// Div: int and lesson 09's FastDiv below 2^31 values (a division by a number known only at run time
// costs dozens of instructions; this kernel is little else), size_t and WideDiv above.
template <class Index, class Div>
__global__ void spread_kernel(const float* __restrict__ dy, float* __restrict__ spread, Index n, int oh, int ow,
                              Div by_width, Div by_height, Div by_stride) {
  const int width = int(by_width.d), height = int(by_height.d), stride = int(by_stride.d);
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) {
    const Index line = by_width.div(i), plane = by_height.div(line);  // line: the row among all planes' rows
    const int col = int(i - line * width), row = int(line - plane * height);
    const int r = int(by_stride.div(row)), c = int(by_stride.div(col));
    const bool on = r * stride == row && c * stride == col && r < oh && c < ow;
    spread[i] = on ? dy[(size_t(plane) * oh + r) * ow + c] : 0.0f;
  }
}

}  // namespace

void spread_by_stride_gpu(const float* dy, float* spread, int planes, int oh, int ow, int height, int width, int stride,
                          cudaStream_t stream) {
  if (planes < 1 || oh < 1 || ow < 1 || stride < 1 || height < (oh - 1) * stride + 1 || width < (ow - 1) * stride + 1)
    throw course::Error("spread_by_stride_gpu: " + std::to_string(oh) + "x" + std::to_string(ow) + " at stride " +
                        std::to_string(stride) + " does not fit " + std::to_string(height) + "x" + std::to_string(width));
  const size_t n = size_t(planes) * height * width;
  const int blocks = first_kernels::blocks_for(n), threads = first_kernels::kThreadsPerBlock;
  if (n < (size_t(1) << 31) - size_t(blocks) * threads)  // i + the grid's stride stays an int
    spread_kernel<<<blocks, threads, 0, stream>>>(dy, spread, int(n), oh, ow, fast_training::FastDiv(width),
                                                  fast_training::FastDiv(height), fast_training::FastDiv(stride));
  else
    spread_kernel<<<blocks, threads, 0, stream>>>(dy, spread, n, oh, ow, WideDiv{size_t(width)},
                                                  WideDiv{size_t(height)}, WideDiv{size_t(stride)});
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
