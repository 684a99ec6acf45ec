#pragma once
// Timers. HostTimer reads the host clock: it measures what the CPU waited for.
// CudaEventTimer records events in the GPU's stream: it measures GPU work alone,
// without launch latency from the host. Time GPU work with events, after warm-up,
// and report the median of several repeats (time_gpu below does all three).
#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <vector>

namespace course {

class HostTimer {
 public:
  HostTimer() { reset(); }
  void reset() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const;
  double milliseconds() const { return seconds() * 1e3; }

 private:
  std::chrono::steady_clock::time_point start_;
};

class CudaEventTimer {
 public:
  CudaEventTimer();
  ~CudaEventTimer();
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  void start(cudaStream_t stream = 0);
  void stop(cudaStream_t stream = 0);
  float milliseconds() const;  // waits for the stop event

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
};

double median(std::vector<double> values);

// How time_gpu measures.
struct GpuTimingOptions {
  int warmup = 3;
  int repeats = 10;
  // Before every timed repeat (outside the events), write a buffer larger than the GPU's L2
  // cache, so each repeat starts with its inputs in device memory, not in L2. Use it when a
  // kernel's data fits in L2 (a few to tens of MiB) and the table should show what the kernel
  // costs inside a network, where the layers before it have evicted its inputs; leave it off
  // to measure the kernel with warm caches, as every table of the course does unless it says so.
  bool flush_l2 = false;
};

// Runs fn `warmup` times, then `repeats` times each between two events; returns the stats.
TimingStats time_gpu(const std::function<void()>& fn, const GpuTimingOptions& options);
TimingStats time_gpu(const std::function<void()>& fn, int warmup = 3, int repeats = 10);
// Same with the host clock (for CPU code).
TimingStats time_host(const std::function<void()>& fn, int warmup = 1, int repeats = 5);

}  // namespace course
