#include "copy_bandwidth.hpp"

#include <cstdio>
#include <cstring>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/timer.hpp"

namespace lesson03 {

namespace {

constexpr const char* kDeviceToDevice = "device -> device (read + write)";

// Page-locked host memory: the GPU's copy engines read it directly (DMA), while pageable
// memory is first copied by the driver into a pinned staging buffer.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t bytes) { CUDA_CHECK(cudaMallocHost(&ptr_, bytes)); }
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

CopyMeasurement time_copy(const char* what, double bytes_moved, int repeats, void* dst, const void* src,
                          size_t bytes, cudaMemcpyKind kind) {
  const course::TimingStats t =
      course::time_gpu([&] { CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind)); }, 2, repeats);
  return {what, bytes_moved, t.median_ms};
}

}  // namespace

std::vector<CopyMeasurement> measure_copies(size_t bytes, int repeats) {
  course::DeviceBuffer<unsigned char> device_a(bytes), device_b(bytes);
  device_a.zero();
  std::vector<unsigned char> pageable(bytes, 1);  // written once, so every page is really mapped
  PinnedBuffer pinned(bytes);
  std::memset(pinned.data(), 1, bytes);

  const double b = static_cast<double>(bytes);
  std::vector<CopyMeasurement> out;
  out.push_back(time_copy("host -> device, pageable", b, repeats, device_a.data(), pageable.data(), bytes,
                          cudaMemcpyHostToDevice));
  out.push_back(time_copy("device -> host, pageable", b, repeats, pageable.data(), device_a.data(), bytes,
                          cudaMemcpyDeviceToHost));
  out.push_back(time_copy("host -> device, pinned", b, repeats, device_a.data(), pinned.data(), bytes,
                          cudaMemcpyHostToDevice));
  out.push_back(time_copy("device -> host, pinned", b, repeats, pinned.data(), device_a.data(), bytes,
                          cudaMemcpyDeviceToHost));
  out.push_back(time_copy(kDeviceToDevice, 2 * b, repeats, device_b.data(), device_a.data(), bytes,
                          cudaMemcpyDeviceToDevice));
  return out;
}

double device_copy_gb_per_s(const std::vector<CopyMeasurement>& copies) {
  for (const CopyMeasurement& c : copies)
    if (c.what == kDeviceToDevice) return c.gb_per_s();
  return 0.0;
}

void print_copy_table(const std::vector<CopyMeasurement>& copies, size_t bytes) {
  std::printf("%-34s %10s %10s\n", "cudaMemcpy", "ms", "GB/s");
  for (const CopyMeasurement& c : copies)
    std::printf("%-34s %10.3f %10.1f\n", c.what.c_str(), c.median_ms, c.gb_per_s());
  std::printf("(%.0f MiB per copy; GB/s = 1e9 bytes per second; median of the repeats, CUDA events)\n",
              static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace lesson03
