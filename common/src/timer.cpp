#include "course/timer.hpp"

#include <algorithm>
#include <memory>

#include "course/cuda_check.hpp"

namespace course {

double HostTimer::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

CudaEventTimer::CudaEventTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}
CudaEventTimer::~CudaEventTimer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}
void CudaEventTimer::start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
void CudaEventTimer::stop(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }
float CudaEventTimer::milliseconds() const {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

namespace {
TimingStats stats_of(const std::vector<double>& ms) {
  TimingStats s;
  s.repeats = static_cast<int>(ms.size());
  if (ms.empty()) return s;
  s.median_ms = median(ms);
  s.min_ms = *std::min_element(ms.begin(), ms.end());
  s.max_ms = *std::max_element(ms.begin(), ms.end());
  return s;
}
}  // namespace

namespace {
// A device buffer twice the L2 cache's size; writing all of it evicts whatever was cached.
class L2Flusher {
 public:
  L2Flusher() {
    int device = 0, l2_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    bytes_ = 2 * static_cast<size_t>(l2_bytes > 0 ? l2_bytes : 1 << 20);
    CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  ~L2Flusher() { cudaFree(buffer_); }
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  // A changing value: a write of what is already there could be skipped by a clever driver.
  void flush(int round) { CUDA_CHECK(cudaMemsetAsync(buffer_, round & 0xFF, bytes_)); }

 private:
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
};
}  // namespace

TimingStats time_gpu(const std::function<void()>& fn, const GpuTimingOptions& options) {
  for (int i = 0; i < options.warmup; ++i) fn();
  std::unique_ptr<L2Flusher> flusher;
  if (options.flush_l2) flusher = std::make_unique<L2Flusher>();
  CUDA_CHECK(cudaDeviceSynchronize());
  CudaEventTimer timer;
  std::vector<double> ms;
  for (int i = 0; i < options.repeats; ++i) {
    if (flusher) flusher->flush(i);  // in the stream before the start event: not timed
    timer.start();
    fn();
    timer.stop();
    ms.push_back(timer.milliseconds());
  }
  CUDA_CHECK(cudaGetLastError());
  return stats_of(ms);
}

TimingStats time_gpu(const std::function<void()>& fn, int warmup, int repeats) {
  GpuTimingOptions options;
  options.warmup = warmup;
  options.repeats = repeats;
  return time_gpu(fn, options);
}

TimingStats time_host(const std::function<void()>& fn, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    HostTimer t;
    fn();
    ms.push_back(t.milliseconds());
  }
  return stats_of(ms);
}

}  // namespace course
