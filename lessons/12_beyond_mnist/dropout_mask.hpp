#pragma once
// Lesson 12 (given, read-only): dropout's mask, computed from a key and an element's index
// instead of stored. The forward pass and the backward pass (and the CPU and the GPU) call
// dropout_keeps with the same key and get the same mask, so nothing is saved between them.
// Usable from host code and from kernels: every function here is integer arithmetic or one
// float operation, which the CPU and the GPU round the same way.
#include <cstdint>

#ifndef COURSE_HD
#ifdef __CUDACC__
#define COURSE_HD __host__ __device__
#else
#define COURSE_HD
#endif
#endif

namespace beyond_mnist {

// SplitMix64's finaliser: a bijection of 64-bit integers whose every output bit depends on every
// input bit, so neighbouring inputs (index i and i + 1) give unrelated outputs.
COURSE_HD inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The key of one dropout layer at one training step: every layer (`layer`, its place in the
// network) and every call (`call`, the step number) gets its own mask from one seed.
COURSE_HD inline uint64_t dropout_key(uint64_t seed, int layer, uint64_t call) {
  return mix64(mix64(mix64(seed) ^ uint64_t(uint32_t(layer))) ^ call);
}

// Whether element `index` is kept: 24 random bits make u in [0, 1) (exact in float), and the
// element is kept when u >= rate, with probability 1 - rate (to 2^-24). rate 0 keeps everything.
COURSE_HD inline bool dropout_keeps(uint64_t key, uint64_t index, float rate) {
  const uint64_t bits = mix64(key ^ mix64(index));
  const float u = float(bits >> 40) * (1.0f / 16777216.0f);  // 2^-24
  return u >= rate;
}

// "Inverted" dropout scales what it keeps by 1 / (1 - rate), so the layer's output has the same
// expected value as its input and the network needs no change at evaluation time. Computed in
// float, once per call, on the host: the CPU and the GPU multiply by the very same number.
COURSE_HD inline float dropout_scale(float rate) { return 1.0f / (1.0f - rate); }

}  // namespace beyond_mnist
