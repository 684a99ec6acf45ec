// Lesson 14, step 14.2: softmax-cross-entropy with label smoothing on the GPU, one warp per row: a
// row of 10 classes is too short to keep a block of 256 busy (09.6 gives a block to a row), and a
// warp reduces with shuffles alone, without shared memory.
#include <algorithm>
#include <cmath>  // NAN, INFINITY

#include "block_reduce.cuh"
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"
#include "speedrun.hpp"

namespace speedrun {

// Lesson 09's warp reductions (block_reduce.cuh): the largest value and the sum over the 32 lanes of
// a warp, every lane getting the result. All 32 lanes must call them together (the row loop below
// keeps whole warps together).
using fast_training::warp_max;
using fast_training::warp_sum;

namespace {

constexpr int kWarpSize = 32;
constexpr int kRowsPerBlock = 8;  // 8 warps of 32: lesson 03's 256 threads per block

// inv_batch = 1 / batch, computed once by the launcher. Warp w of the grid, w = (global thread
// index) / 32, owns rows w, w + (warps in the grid), ...: the launcher caps the grid, so a warp may
// own several rows. Its 32 lanes stride over the row's classes.
__global__ void smoothed_cross_entropy_kernel(const float* __restrict__ logits, const int* __restrict__ labels,
                                              float* __restrict__ row_loss, float* __restrict__ dlogits, int batch,
                                              int classes, float smoothing, float inv_batch) {
  const int lane = threadIdx.x % kWarpSize;
  const int warps_in_grid = gridDim.x * (blockDim.x / kWarpSize);
  const float true_weight = 1.0f - smoothing;        // the target's extra share at the true class
  const float uniform = smoothing / float(classes);  // every class's share of the smoothing
  // The same trip count for every lane of a warp: each reaches every shuffle.
  for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; row < batch; row += warps_in_grid) {
    const float* z = logits + size_t(row) * classes;
    float* dz = dlogits + size_t(row) * classes;
    const int label = labels[row];
    if (label < 0 || label >= classes) {  // the whole warp takes this branch: no shuffle is skipped
      for (int k = lane; k < classes; k += kWarpSize) dz[k] = NAN;
      if (lane == 0) row_loss[row] = NAN;
      continue;
    }
    float m = -INFINITY;
    for (int k = lane; k < classes; k += kWarpSize) m = fmaxf(m, z[k]);
    m = warp_max(m);
    float sum_exp = 0.0f, sum_shifted = 0.0f;
    for (int k = lane; k < classes; k += kWarpSize) {
      const float shifted = z[k] - m;
      sum_exp += expf(shifted);
      sum_shifted += shifted;
    }
    sum_exp = warp_sum(sum_exp);
    sum_shifted = warp_sum(sum_shifted);
    const float inv_sum = 1.0f / sum_exp;
    for (int k = lane; k < classes; k += kWarpSize) {
      const float target = (k == label ? true_weight : 0.0f) + uniform;
      dz[k] = (expf(z[k] - m) * inv_sum - target) * inv_batch;
    }
    if (lane == 0) row_loss[row] = logf(sum_exp) - true_weight * (z[label] - m) - uniform * sum_shifted;
  }
}

}  // namespace

void smoothed_cross_entropy_gpu(const float* logits, const int* labels, float* row_loss, float* dlogits, int batch,
                                int classes, float smoothing, cudaStream_t stream) {
  check_smoothing("smoothed_cross_entropy_gpu", batch, classes, smoothing);
  if (batch == 0) return;
  const int blocks = std::min((batch + kRowsPerBlock - 1) / kRowsPerBlock, first_kernels::kMaxBlocks);
  smoothed_cross_entropy_kernel<<<blocks, kWarpSize * kRowsPerBlock, 0, stream>>>(
      logits, labels, row_loss, dlogits, batch, classes, smoothing, 1.0f / float(batch));
  CUDA_CHECK_LAUNCH();
}

}  // namespace speedrun
