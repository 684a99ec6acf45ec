#include "course/device_buffer.hpp"

#include <cstdio>
#include <string>

namespace course {

namespace {
std::string mib(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}
}  // namespace

void* device_allocate(size_t bytes) {
  void* ptr = nullptr;
  cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error so later calls work
    size_t free_bytes = 0, total_bytes = 0;
    std::string state;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      state = " (" + mib(free_bytes) + " free of " + mib(total_bytes) + ")";
    throw CudaError(err, "out of device memory: asked for " + mib(bytes) + state);
  }
  if (err != cudaSuccess)
    throw_cuda_error(err, ("cudaMalloc of " + mib(bytes)).c_str(), __FILE__, __LINE__);
  return ptr;
}

void device_free(void* ptr) noexcept {
  if (ptr) cudaFree(ptr);  // errors ignored: this runs in destructors
}

}  // namespace course
