// CudaEventTimer and time_gpu measure real GPU work (cudaMemset of a large buffer).
#include "course/device_buffer.hpp"
#include "course/timer.hpp"
#include "course_test.hpp"

TEST_CASE("CudaEventTimer measures a cudaMemset", "[timer_gpu]") {
  course::DeviceBuffer<char> buf(size_t{256} << 20);  // 256 MiB
  buf.zero();                                          // warm-up: first touch of the memory
  course::CudaEventTimer t;
  t.start();
  CUDA_CHECK(cudaMemset(buf.data(), 1, buf.bytes()));
  t.stop();
  const float ms = t.milliseconds();
  // 256 MiB at any bandwidth from 10 GB/s to 100 TB/s: between 0.0027 ms and 27 ms;
  // the bounds only catch a timer that reads 0, a negative value or seconds as ms.
  CHECK(ms > 0.0f);
  CHECK(ms < 1000.0f);
}

TEST_CASE("time_gpu runs warm-up plus repeats; a bigger memset takes longer", "[timer_gpu]") {
  course::DeviceBuffer<char> buf(size_t{256} << 20);
  int calls = 0;
  auto memset_bytes = [&](size_t bytes) {
    return [&calls, &buf, bytes] {
      ++calls;
      CUDA_CHECK(cudaMemset(buf.data(), 0, bytes));
    };
  };
  const course::TimingStats big = course::time_gpu(memset_bytes(buf.bytes()), 2, 7);
  CHECK(calls == 9);
  CHECK(big.repeats == 7);
  CHECK(big.min_ms > 0.0);
  CHECK(big.min_ms <= big.median_ms);
  CHECK(big.median_ms <= big.max_ms);
  const course::TimingStats small = course::time_gpu(memset_bytes(4096), 2, 7);
  // 256 MiB against 4 KiB: at least ~0.03 ms (at 8 TB/s) against a few microseconds.
  CHECK(big.median_ms > small.median_ms);
  CHECK(cudaGetLastError() == cudaSuccess);
}

// The L2 flush of GpuTimingOptions runs before each timed repeat, outside the events, so a
// tiny call stays tiny. (How much slower a call gets without its data in L2 depends on the GPU
// and is not checked.)
TEST_CASE("time_gpu with flush_l2 runs every call and leaves the flush out of the time", "[timer_gpu_l2_flush]") {
  int device = 0, l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  REQUIRE(l2_bytes > 0);
  course::DeviceBuffer<char> big(2 * size_t(l2_bytes)), tiny(4096);
  int calls = 0;
  course::GpuTimingOptions options;
  options.warmup = 2;
  options.repeats = 7;
  options.flush_l2 = true;
  const course::TimingStats flushed =
      course::time_gpu([&] { ++calls; CUDA_CHECK(cudaMemsetAsync(tiny.data(), 0, tiny.bytes())); }, options);
  CHECK(calls == 9);
  CHECK(flushed.repeats == 7);
  CHECK(flushed.min_ms <= flushed.median_ms);
  CHECK(flushed.median_ms <= flushed.max_ms);
  // What one flush costs: a write of twice the L2 cache. A 4 KiB memset timed with the flush
  // inside the events would take at least that long.
  const course::TimingStats flush_alone =
      course::time_gpu([&] { CUDA_CHECK(cudaMemsetAsync(big.data(), 1, big.bytes())); }, 2, 7);
  CHECK(flushed.median_ms < flush_alone.median_ms);
  CHECK(cudaGetLastError() == cudaSuccess);
}
