// Lesson 15, step 15.7: the boxes found on the GPU, counted as the GPU trainer counts right
// answers. YOUR FILE: the kernel's body (and a device IoU for it); the launcher below is written for
// you.
#include <string>

#include "box_task.hpp"  // box_targets, kBoxOutputs, kIouHit
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void count_box_hits_kernel(const float* __restrict__ outputs, const int* __restrict__ labels, int batch,
                                      int* __restrict__ hits) {
  // TODO(15.7): a row b a thread (a grid-stride loop over the rows): its IoU with the box of labels[b]
  // (box_targets), as your CPU box_iou; the rows with IoU >= kIouHit counted, and *hits raised by the
  // thread's count once.
  (void)outputs, (void)labels, (void)batch, (void)hits;
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
