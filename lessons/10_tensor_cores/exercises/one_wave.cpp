// Lesson 10, step 10.9: how many blocks one SM holds. YOUR FILE (tensor_cores.hpp, section 10.9, says
// what each limit is).
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

int blocks_per_sm(const SmLimits& sm, const BlockNeeds& block) {
  // TODO(10.9): refuse a bad block (course::Error), then return the smallest of the four limits: the
  // SM's threads, its registers (given to whole warps in units), its shared memory (each block also
  // costs the reserved part) and its block count.
  (void)sm, (void)block;
  course::todo("10.9", "blocks_per_sm");
}

}  // namespace tensor_cores
