// Lesson 10, step 10.9: blocks_per_sm against occupancies worked out by hand, on an H100's limits and
// an A100's; each case is chosen so that one of the limits decides it, and several so that forgetting
// a rule (the register unit, the partitions, the reserved shared memory, the shared unit) changes the
// answer. The GPU cases (test_occupancy_gpu.cpp) compare with the CUDA runtime's own count.
#include "course/error.hpp"
#include "course_test.hpp"
#include "tensor_cores.hpp"

using tensor_cores::BlockNeeds;
using tensor_cores::SmLimits;

namespace {
SmLimits h100() { return {132, 2048, 32, 65536, 4, 256, 233472, 1024, 128}; }
SmLimits a100() { return {108, 2048, 32, 65536, 4, 256, 167936, 1024, 128}; }

struct Case {
  BlockNeeds block;
  int expected;
  const char* why;
};
}  // namespace

TEST_CASE("blocks_per_sm: the smallest of the threads, registers, shared memory and block limits", "[10.9]") {
  const Case cases[] = {
      {{256, 96, 161792}, 1, "shared memory: 10.6's block (158 KiB + 1 KiB reserved)"},
      {{256, 98, 92160}, 2, "registers and shared memory both allow 2"},
      {{128, 32, 0}, 16, "threads: 2048 / 128"},
      {{32, 16, 0}, 32, "the block limit (threads would allow 64)"},
      {{1024, 64, 49152}, 1, "registers: 32 warps of 2048 registers fill the SM"},
      {{256, 255, 0}, 1, "registers: 255 a thread, a warp 8192"},
      {{64, 40, 100000}, 2, "shared memory, rounded up to 128-byte units"},
      {{1024, 128, 0}, 0, "registers: 16 warps fit, the block has 32"},
      {{256, 32, 240000}, 0, "shared memory: more than the SM has"},
      {{128, 98, 0}, 4, "registers rounded up to the unit (3136 -> 3328 a warp; without the unit: 5)"},
      {{32, 98, 0}, 16, "registers per partition (4 warps each; the whole file alone would give 19)"},
      {{32, 32, 116000}, 1, "the reserved 1 KiB a block (without it: 2)"},
      {{32, 32, 45666}, 4, "the 128-byte shared unit (without it: 5)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.block.threads, c.block.registers_per_thread, c.block.shared_bytes, c.why);
    CHECK(tensor_cores::blocks_per_sm(h100(), c.block) == c.expected);
  }
  // The A100: less shared memory (164 KiB an SM). 10.7's block: 111 registers, 54 KiB.
  CHECK(tensor_cores::blocks_per_sm(a100(), {256, 111, 55296}) == 2);
  CHECK(tensor_cores::blocks_per_sm(a100(), {256, 32, 83000}) == 1);  // 2 on the H100
  CHECK(tensor_cores::blocks_per_sm(h100(), {256, 32, 83000}) == 2);
}

TEST_CASE("blocks_per_sm refuses a block it cannot count", "[10.9]") {
  REQUIRE(tensor_cores::blocks_per_sm(h100(), {128, 32, 0}) == 16);  // it counts a good one
  for (const BlockNeeds& bad : {BlockNeeds{0, 32, 0}, BlockNeeds{100, 32, 0}, BlockNeeds{-32, 32, 0},
                                BlockNeeds{128, -1, 0}}) {
    CAPTURE(bad.threads, bad.registers_per_thread);
    REQUIRE_THROWS_AS(tensor_cores::blocks_per_sm(h100(), bad), course::Error);
  }
}
