// Lesson 15 (given): the box task's kernels (box_task.hpp): a label's targets, the rows' scale, and
// each row's box in whole pixels.
#include "box_task.hpp"
#include "course/cuda_check.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void box_targets_kernel(const int* __restrict__ labels, int batch, float* __restrict__ targets) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < batch; b += gridDim.x * blockDim.x)
    box_targets(labels[b], targets + size_t(b) * kBoxOutputs);
}

__global__ void scale_rows_kernel(float* rows, int batch, float factor) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < batch; b += gridDim.x * blockDim.x) rows[b] *= factor;
}

// Pixels of a fraction of the canvas, rounded and clamped to 0..kCanvas.
__device__ int pixel_of(float v) { return v >= 0.0f ? min(int(lrintf(fminf(v, 1.0f) * kCanvas)), kCanvas) : 0; }

__global__ void predicted_boxes_kernel(const float* __restrict__ outputs, int batch, int* __restrict__ predictions) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < batch; b += gridDim.x * blockDim.x) {
    const float* p = outputs + size_t(b) * kBoxOutputs;
    const Box r{pixel_of(p[0]), pixel_of(p[1]), pixel_of(p[2]), pixel_of(p[3])};
    predictions[b] = r.x0 < r.x1 && r.y0 < r.y1 ? pack_box(r) : -1;
  }
}

}  // namespace

void box_targets_gpu(const int* labels, int batch, float* targets, cudaStream_t stream) {
  if (batch < 1) return;
  box_targets_kernel<<<first_kernels::blocks_for(size_t(batch)), first_kernels::kThreadsPerBlock, 0, stream>>>(
      labels, batch, targets);
  CUDA_CHECK_LAUNCH();
}

void scale_rows_gpu(float* rows, int batch, float factor, cudaStream_t stream) {
  if (batch < 1) return;
  scale_rows_kernel<<<first_kernels::blocks_for(size_t(batch)), first_kernels::kThreadsPerBlock, 0, stream>>>(
      rows, batch, factor);
  CUDA_CHECK_LAUNCH();
}

void predicted_boxes_gpu(const float* outputs, int batch, int* predictions, cudaStream_t stream) {
  if (batch < 1) return;
  predicted_boxes_kernel<<<first_kernels::blocks_for(size_t(batch)), first_kernels::kThreadsPerBlock, 0, stream>>>(
      outputs, batch, predictions);
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
