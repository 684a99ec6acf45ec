// Lesson 15 (given): the box task's kernels (box_task.hpp): a label's targets, the rows' scale, and
// the boxes found, counted as lesson 08's trainer counts right answers.
#include "box_task.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
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

__global__ void count_box_hits_kernel(const float* __restrict__ outputs, const int* __restrict__ labels, int batch,
                                      int* __restrict__ predictions, int* __restrict__ hits) {
  int found = 0;
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < batch; b += gridDim.x * blockDim.x) {
    const float* p = outputs + size_t(b) * kBoxOutputs;
    found += box_iou(p, labels[b]) >= kIouHit;
    const Box r{pixel_of(p[0]), pixel_of(p[1]), pixel_of(p[2]), pixel_of(p[3])};
    predictions[b] = r.x0 < r.x1 && r.y0 < r.y1 ? pack_box(r) : -1;
  }
  if (found) atomicAdd(hits, found);
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

void count_box_hits_gpu(const float* outputs, const int* labels, int batch, int outputs_per_example,
                        int* predictions, int* hits, cudaStream_t stream) {
  if (outputs_per_example != kBoxOutputs)
    throw course::Error("count_box_hits_gpu: a box is " + std::to_string(kBoxOutputs) + " outputs, the network gives " +
                        std::to_string(outputs_per_example));
  if (batch < 1) return;
  count_box_hits_kernel<<<first_kernels::blocks_for(size_t(batch)), first_kernels::kThreadsPerBlock, 0, stream>>>(
      outputs, labels, batch, predictions, hits);
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
