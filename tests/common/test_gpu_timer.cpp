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
