// Lesson 08, step 08.3: gather a minibatch on the device, images and labels by index.
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "first_kernels.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

namespace {

// One thread per float of the batch: t -> (example j = t / per_example, pixel e = t % per_example).
// Consecutive threads copy consecutive pixels of one image, so both the read of images and the
// write of x are coalesced; the thread with e == 0 also copies the label.
__global__ void gather_kernel(const float* __restrict__ images, const int* __restrict__ labels, int n,
                              int per_example, const int* __restrict__ order, int first, int count,
                              float* __restrict__ x, int* __restrict__ batch_labels) {
  const size_t total = size_t(count) * per_example;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const int j = static_cast<int>(t / per_example);
    const int e = static_cast<int>(t % per_example);
    const int k = order[first + j];
    const bool valid = k >= 0 && k < n;  // a bad index poisons the example instead of reading past the end
    x[t] = valid ? images[size_t(k) * per_example + e] : __int_as_float(0x7fffffff);
    if (e == 0) batch_labels[j] = valid ? labels[k] : -1;
  }
}

}  // namespace

void gather_batch(const float* images, const int* labels, int n, int per_example, const int* order, int first,
                  int count, float* x, int* batch_labels, cudaStream_t stream) {
  if (n < 0 || per_example < 1 || first < 0 || count < 0 || first > n || count > n - first)
    throw course::Error("gather_batch: examples " + std::to_string(first) + " .. " + std::to_string(first + count) +
                        " of an order of " + std::to_string(n) + " (per_example " + std::to_string(per_example) +
                        ") are out of range");
  if (count == 0) return;
  const size_t total = size_t(count) * per_example;
  gather_kernel<<<first_kernels::blocks_for(total), first_kernels::kThreadsPerBlock, 0, stream>>>(
      images, labels, n, per_example, order, first, count, x, batch_labels);
  CUDA_CHECK_LAUNCH();
}

}  // namespace mnist_gpu
