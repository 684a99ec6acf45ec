// Lesson 14, step 14.3: random translations of a batch of images on the GPU. YOUR FILE.
// Write the kernel body marked TODO(14.3); the launcher below is written for you.
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
  // TODO(14.3): for EVERY output index e < n (grid-stride loop, size_t indices): split e into
  // (b, c, i, j) of the NCHW layout; s = example_shift(key, b, max_shift) (the image's index b,
  // never the thread's); y[e] = x[b][c][i - s.dy][j - s.dx] where that pixel is inside the image,
  // else 0: the same bits as your shift_images.
  (void)x, (void)y, (void)n, (void)channels, (void)height, (void)width, (void)max_shift, (void)key;
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
