// Lesson 12 (given): the dropout layer's key in device memory (dropout_keys.hpp).
#include "course/cuda_check.hpp"
#include "dropout_keys.hpp"
#include "dropout_mask.hpp"

namespace beyond_mnist {

namespace {
__global__ void next_dropout_key_kernel(uint64_t seed, int layer, uint64_t* passes, uint64_t* key) {
  *key = dropout_key(seed, layer, *passes);
  *passes += 1;
}
}  // namespace

void next_dropout_key(uint64_t seed, int layer, uint64_t* passes, uint64_t* key, cudaStream_t stream) {
  next_dropout_key_kernel<<<1, 1, 0, stream>>>(seed, layer, passes, key);
  CUDA_CHECK_LAUNCH();
}

}  // namespace beyond_mnist
