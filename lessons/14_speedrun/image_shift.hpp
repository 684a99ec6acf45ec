#pragma once
// Lesson 14 (given, read-only): the translation of one training image, drawn from a key and the
// example's index instead of stored, so that the CPU and the GPU (and a replayed CUDA graph, whose
// key is written before it runs) move every image the same way. Lesson 12's mix64 hash.
#include <cstdint>

#include "dropout_mask.hpp"  // mix64, COURSE_HD

namespace speedrun {

struct Shift {
  int dy = 0, dx = 0;  // rows down, columns right
};

// (dy, dx) of example `example`, each uniform in -max_shift .. max_shift (to 2^-32), from two
// independent halves of one hash. max_shift 0 gives (0, 0).
COURSE_HD inline Shift example_shift(uint64_t key, uint64_t example, int max_shift) {
  const uint64_t bits = beyond_mnist::mix64(key ^ beyond_mnist::mix64(example));
  const uint64_t choices = uint64_t(2 * max_shift + 1);
  Shift s;
  s.dy = int((bits >> 32) % choices) - max_shift;
  s.dx = int((bits & 0xFFFFFFFFull) % choices) - max_shift;
  return s;
}

// The key of the augmentation of one training step: one seed, a new draw every step.
COURSE_HD inline uint64_t shift_key(uint64_t seed, uint64_t step) {
  return beyond_mnist::mix64(beyond_mnist::mix64(seed ^ 0x5EED5EEDull) ^ step);
}

}  // namespace speedrun
