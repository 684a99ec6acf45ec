#pragma once
// Lesson 12 (given): the dropout layer's key, kept in device memory so that a training step
// captured into a CUDA graph draws a new mask every time it is replayed.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace beyond_mnist {

// One thread, on `stream`: *key = dropout_key(seed, layer, *passes), then ++*passes. passes counts
// the layer's training passes on the device (start it at 0): the c-th one gets the CPU's key c.
void next_dropout_key(uint64_t seed, int layer, uint64_t* passes, uint64_t* key, cudaStream_t stream);

}  // namespace beyond_mnist
