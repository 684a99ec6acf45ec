// Lesson 15, step 15.7: the boxes found on the GPU, counted as the GPU trainer counts right
// answers.
#include <string>

#include "box_task.hpp"  // box_targets, kBoxOutputs, kIouHit
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

// box_iou of the CPU, for a thread.
__device__ float iou_on_device(const float* pred, const float* truth) {
  const float width = pred[2] - pred[0], height = pred[3] - pred[1];
  if (!(width > 0.0f && height > 0.0f)) return 0.0f;
  const float shared_w = fmaxf(0.0f, fminf(pred[2], truth[2]) - fmaxf(pred[0], truth[0]));
  const float shared_h = fmaxf(0.0f, fminf(pred[3], truth[3]) - fmaxf(pred[1], truth[1]));
  const float shared = shared_w * shared_h;
  return shared / (width * height + (truth[2] - truth[0]) * (truth[3] - truth[1]) - shared);
}

__global__ void count_box_hits_kernel(const float* __restrict__ outputs, const int* __restrict__ labels, int batch,
                                      int* __restrict__ hits) {
  int found = 0;
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < batch; b += gridDim.x * blockDim.x) {
    float truth[kBoxOutputs];
    box_targets(labels[b], truth);
    found += iou_on_device(outputs + size_t(b) * kBoxOutputs, truth) >= kIouHit;
  }
  if (found) atomicAdd(hits, found);
}

}  // namespace

void count_box_hits_gpu(const float* outputs, const int* labels, int batch, int outputs_per_example,
                        int* predictions, int* hits, cudaStream_t stream) {
  if (outputs_per_example != kBoxOutputs)
    throw course::Error("count_box_hits_gpu: a box is " + std::to_string(kBoxOutputs) + " outputs, the network gives " +
                        std::to_string(outputs_per_example));
  if (batch < 1) return;
  count_box_hits_kernel<<<first_kernels::blocks_for(size_t(batch)), first_kernels::kThreadsPerBlock, 0, stream>>>(
      outputs, labels, batch, hits);
  CUDA_CHECK_LAUNCH();
  predicted_boxes_gpu(outputs, batch, predictions, stream);
}

}  // namespace deeper_cnns
