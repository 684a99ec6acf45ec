#pragma once
// DeviceBuffer<T>: an array in GPU memory that frees itself (RAII), move-only.
// Out of memory throws course::CudaError saying how much was asked for and how much was free.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "course/cuda_check.hpp"

namespace course {

// Allocation and poisoning, shared by every DeviceBuffer<T>.
void* device_allocate(size_t bytes);
void device_free(void* ptr) noexcept;

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > static_cast<size_t>(-1) / sizeof(T))
      throw Error("DeviceBuffer: " + std::to_string(count_) + " elements do not fit in size_t bytes");
    if (count_ > 0) ptr_ = static_cast<T*>(device_allocate(count_ * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { device_free(ptr_); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      device_free(ptr_);
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  // Host -> device; count must not exceed size(). Copies of 0 elements touch no GPU.
  void upload(const T* host, size_t count) {
    check_fits(count);
    if (count == 0) return;
    CUDA_CHECK(cudaMemcpy(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  // Device -> host (waits for the copy, so it also waits for earlier kernels).
  void download(T* host, size_t count) const {
    check_fits(count);
    if (count == 0) return;
    CUDA_CHECK(cudaMemcpy(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
  }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    download(host.data(), count_);
    return host;
  }
  void zero() {
    if (count_ > 0) CUDA_CHECK(cudaMemset(ptr_, 0, bytes()));
  }
  // Every byte 0xFF: for float that is a NaN, for int -1. Tests poison outputs
  // with it so that an element a kernel never wrote is caught.
  void poison() {
    if (count_ > 0) CUDA_CHECK(cudaMemset(ptr_, 0xFF, bytes()));
  }

 private:
  void check_fits(size_t count) const {
    if (count > count_)
      throw Error("DeviceBuffer: copy of " + std::to_string(count) + " elements into a buffer of " +
                  std::to_string(count_));
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace course
