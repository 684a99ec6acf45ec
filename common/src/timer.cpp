#include "course/timer.hpp"

#include <algorithm>

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

TimingStats time_gpu(const std::function<void()>& fn, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) fn();
  CUDA_CHECK(cudaDeviceSynchronize());
  CudaEventTimer timer;
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    timer.start();
    fn();
    timer.stop();
    ms.push_back(timer.milliseconds());
  }
  CUDA_CHECK(cudaGetLastError());
  return stats_of(ms);
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
