// DeviceBuffer on any machine: empty buffers need no GPU; without one, allocating says why.
// The GPU behaviour (copies, poison, out of memory) is tested in test_gpu_device_buffer.cpp.
#include "course/device_buffer.hpp"

#include "course/device_info.hpp"
#include "course_test.hpp"
#include "test_files.hpp"

using course::DeviceBuffer;
using course::test::contains;

TEST_CASE("an empty DeviceBuffer works without touching the GPU", "[device_buffer]") {
  DeviceBuffer<float> none;
  CHECK(none.size() == 0);
  CHECK(none.bytes() == 0);
  CHECK(none.data() == nullptr);
  DeviceBuffer<float> zero(0);
  CHECK(zero.data() == nullptr);
  CHECK(zero.to_host().empty());
  zero.zero();    // nothing to clear
  zero.poison();  // nothing to poison
  DeviceBuffer<int> from_empty(std::vector<int>{});
  CHECK(from_empty.size() == 0);
  DeviceBuffer<float> moved(std::move(zero));
  CHECK(moved.size() == 0);
  none = std::move(moved);
  CHECK(none.data() == nullptr);
}

TEST_CASE("a copy larger than the buffer is refused before any CUDA call", "[device_buffer]") {
  DeviceBuffer<float> empty(0);
  const std::vector<float> three(3, 1.0f);
  try {
    empty.upload(three);
    FAIL("upload did not throw");
  } catch (const course::CudaError&) {
    FAIL("the size check must come before the copy");
  } catch (const course::Error& e) {
    CHECK(std::string(e.what()) == "DeviceBuffer: copy of 3 elements into a buffer of 0");
  }
  std::vector<float> out(2);
  CHECK_THROWS_AS(empty.download(out.data(), 2), course::Error);
}

TEST_CASE("without a GPU, allocating throws CudaError saying there is no GPU", "[device_buffer]") {
  if (course::gpu_available()) {
    SUCCEED("a GPU is present: allocation is tested in the GPU tests");
    return;
  }
  try {
    DeviceBuffer<float> b(1000);
    FAIL("allocation without a GPU did not throw");
  } catch (const course::CudaError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(e.code() != cudaSuccess);
    CHECK(contains(msg, "cannot allocate 4000 bytes of device memory"));
    CHECK(contains(msg, "no usable CUDA GPU"));
  }
}
