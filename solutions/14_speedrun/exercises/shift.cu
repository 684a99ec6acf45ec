// Lesson 14, step 14.3: random translations of a batch of images on the GPU: the CPU's copy, one
// output pixel per thread, the same bits.
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"
#include "image_shift.hpp"
#include "speedrun.hpp"

namespace speedrun {

namespace {

// One thread per OUTPUT pixel: each reads the one input pixel that lands on it (or none), so no two
// threads write the same place and nothing needs zeroing first. n = batch * channels * height * width.
__global__ void shift_images_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n, int channels,
                                    int height, int width, int max_shift, uint64_t key) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t plane = size_t(height) * width;
  for (size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const size_t image_plane = e / plane;  // b * channels + c
    const int b = int(image_plane / channels);
    const int i = int((e % plane) / width), j = int(e % width);
    // Recomputed by every thread of the image: a few integer operations, cheaper than a lookup.
    const Shift s = example_shift(key, uint64_t(b), max_shift);
    const int from_i = i - s.dy, from_j = j - s.dx;
    const bool inside = from_i >= 0 && from_i < height && from_j >= 0 && from_j < width;
    y[e] = inside ? x[image_plane * plane + size_t(from_i) * width + from_j] : 0.0f;
  }
}

}  // namespace

void shift_images_gpu(const float* x, float* y, int batch, int channels, int height, int width, int max_shift,
                      uint64_t key, cudaStream_t stream) {
  check_shift("shift_images_gpu", batch, channels, height, width, max_shift);
  const size_t n = size_t(batch) * channels * height * width;
  if (n == 0) return;
  shift_images_kernel<<<first_kernels::blocks_for(n), first_kernels::kThreadsPerBlock, 0, stream>>>(
      x, y, n, channels, height, width, max_shift, key);
  CUDA_CHECK_LAUNCH();
}

}  // namespace speedrun
