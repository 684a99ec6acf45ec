#pragma once
// Copy bandwidth between host and device memory, and inside device memory: the costs a
// GPU program pays to move data, and the ceiling lesson 03's kernels are compared with.
#include <cstddef>
#include <string>
#include <vector>

namespace lesson03 {

struct CopyMeasurement {
  std::string what;
  double bytes_moved = 0;  // bytes read + bytes written on the device side for D2D, else bytes copied
  double median_ms = 0;
  double gb_per_s() const { return median_ms > 0 ? bytes_moved / (median_ms * 1e6) : 0.0; }
};

// cudaMemcpy of `bytes` bytes: host->device and device->host from pageable memory
// (std::vector) and from pinned memory (cudaMallocHost), then device->device (counted as
// 2 * bytes: every byte is read once and written once). CUDA events, median of `repeats`.
std::vector<CopyMeasurement> measure_copies(size_t bytes, int repeats);

// The device->device entry of the list above.
double device_copy_gb_per_s(const std::vector<CopyMeasurement>& copies);

void print_copy_table(const std::vector<CopyMeasurement>& copies, size_t bytes);

}  // namespace lesson03
