// Lesson 14, step 14.2: softmax-cross-entropy with label smoothing on the GPU. YOUR FILE.
// Write the body of smoothed_cross_entropy_kernel (its TODO is the step's); the warp reductions and
// the launcher below are written for you. One warp per row: a row of 10 classes is too short to
// keep a block of 256 busy (09.6 gives a block to a row), and a warp reduces with shuffles alone,
// without shared memory.
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
  // TODO(14.2): for every row the warp owns: m = warp_max of the lanes' maxima; then warp_sum of
  // exp(z_k - m) and of (z_k - m); then each lane writes its classes' dlogits, and lane 0 the row's
  // loss (expf, logf). A label outside 0 .. classes-1: NaN in the row's loss and every gradient.
  // Keep the row loop the same for all 32 lanes, so that every lane reaches every shuffle.
  (void)logits, (void)labels, (void)row_loss, (void)dlogits, (void)batch, (void)classes, (void)smoothing;
  (void)inv_batch;
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
