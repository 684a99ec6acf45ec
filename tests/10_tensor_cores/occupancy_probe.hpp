#pragma once
// Two stand-in kernels for 10.9's GPU test: what the CUDA runtime says about how many of their blocks
// an SM holds (cudaOccupancyMaxActiveBlocksPerMultiprocessor), and what the compiler gave them.
#include <cstddef>

namespace occupancy_probe {

struct Probe {
  int registers_per_thread;  // cudaFuncAttributes::numRegs
  size_t static_shared;      // cudaFuncAttributes::sharedSizeBytes
  int runtime_blocks;        // the runtime's count for this block size and dynamic shared memory
};
// kernel 0: a light one; kernel 1: one that keeps many values in registers.
Probe probe(int kernel, int threads, size_t dynamic_shared);

}  // namespace occupancy_probe
