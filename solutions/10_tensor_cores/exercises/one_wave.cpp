// Lesson 10, step 10.9: how many blocks one SM holds (tensor_cores.hpp, section 10.9).
#include <algorithm>
#include <string>

#include "course/arithmetic.hpp"
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

int blocks_per_sm(const SmLimits& sm, const BlockNeeds& block) {
  if (block.threads <= 0 || block.threads % 32 != 0 || block.registers_per_thread < 0)
    throw course::Error("blocks_per_sm: a block needs a positive multiple of 32 threads and registers >= 0, got " +
                        std::to_string(block.threads) + " threads and " + std::to_string(block.registers_per_thread) +
                        " registers");
  const int warps = block.threads / 32;
  const int by_threads = sm.max_threads / block.threads;
  // A warp sits in one partition of the register file: count the warps each partition holds.
  const int warp_registers = int(course::round_up(size_t(32 * block.registers_per_thread), size_t(sm.register_unit)));
  const int by_registers =
      warp_registers == 0 ? sm.max_blocks
                          : sm.register_partitions * (sm.registers / sm.register_partitions / warp_registers) / warps;
  const size_t block_shared = course::round_up(block.shared_bytes + sm.reserved_shared, sm.shared_unit);
  const int by_shared = int(sm.shared_bytes / block_shared);
  return std::min({by_threads, by_registers, by_shared, sm.max_blocks});
}

}  // namespace tensor_cores
