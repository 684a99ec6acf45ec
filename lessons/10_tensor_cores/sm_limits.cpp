// Lesson 10 (given): what one SM of the current GPU offers (10.9), from the device's attributes.
#include <map>
#include <mutex>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace {

SmLimits read_limits(int device) {
  auto attribute = [device](cudaDeviceAttr what) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
    return value;
  };
  SmLimits sm;
  sm.sms = attribute(cudaDevAttrMultiProcessorCount);
  sm.max_threads = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  sm.max_blocks = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
  sm.registers = attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
  sm.register_partitions = 4;  // the runtime reports neither: 4 and 256 on every GPU since Volta
  sm.register_unit = 256;
  sm.shared_bytes = size_t(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  sm.reserved_shared = size_t(attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  sm.shared_unit = 128;  // Volta and newer
  return sm;
}

}  // namespace

// Read once per device: the splits ask at every launch that is not replayed from a graph.
SmLimits sm_limits() {
  int device = 0, count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw course::Error("sm_limits: no CUDA GPU is visible");
  }
  CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex guard;
  static std::map<int, SmLimits> known;
  const std::lock_guard<std::mutex> lock(guard);
  auto found = known.find(device);
  if (found == known.end()) found = known.emplace(device, read_limits(device)).first;
  return found->second;
}

}  // namespace tensor_cores
