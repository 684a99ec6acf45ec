#pragma once
// A stand-in for the all-reduce in 13.3's tests: it copies a bucket's gradients aside (what the
// reduction saw) and halves them (what it left), so the tests see when it ran and what came after.
#include <cuda_runtime.h>

#include <cstddef>

namespace data_parallel_test {

void snapshot_and_halve(float* grads, float* snapshot, size_t count, cudaStream_t stream);
const void* snapshot_kernel();  // the kernel's address, to find its nodes in a captured graph

}  // namespace data_parallel_test
