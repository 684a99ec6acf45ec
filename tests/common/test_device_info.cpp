// device_info: a clear answer with or without a GPU (this test runs on both kinds of machine).
#include "course/device_info.hpp"

#include <cuda_runtime.h>

#include <sstream>

#include "course_test.hpp"
#include "test_files.hpp"

using course::test::contains;
using course::test::error_message;

TEST_CASE("query_devices is consistent and remembered", "[device_info]") {
  const course::DeviceStatus a = course::query_devices();
  const course::DeviceStatus b = course::query_devices();
  CHECK(a.count == b.count);
  CHECK(a.reason == b.reason);
  CHECK(a.available() == (a.count > 0));
  CHECK(course::gpu_available() == a.available());
}

TEST_CASE("cuda_versions names the runtime, the driver and the toolkit", "[device_info]") {
  const std::string v = course::cuda_versions();
  INFO(v);
  CHECK(contains(v, "CUDA runtime "));
  CHECK(contains(v, "driver "));
  CHECK(contains(v, "built with toolkit " + std::to_string(CUDART_VERSION / 1000) + "."));
}

TEST_CASE("without a GPU: count 0, a reason, and require_gpu says so", "[device_info]") {
  const course::DeviceStatus s = course::query_devices();
  if (s.available()) {
    SUCCEED("a GPU is present: covered by the next test case");
    return;
  }
  CHECK(s.count == 0);
  CHECK_FALSE(s.reason.empty());
  const std::string msg = error_message([] { course::require_gpu("lesson 03"); });
  INFO(msg);
  CHECK(msg.rfind("lesson 03 needs a CUDA GPU, but none is usable", 0) == 0);
  CHECK(contains(msg, s.reason));
  std::ostringstream out;
  CHECK_THROWS_AS(course::print_device_properties(out, 0), course::Error);
  CHECK(contains(course::device_summary(0), "unreadable"));
}

TEST_CASE("with a GPU: a count, no error from require_gpu, a summary and the properties", "[device_info]") {
  const course::DeviceStatus s = course::query_devices();
  if (!s.available()) {
    SUCCEED("no GPU here: covered by the previous test case");
    return;
  }
  CHECK(s.count > 0);
  CHECK_NOTHROW(course::require_gpu("lesson 03"));
  const std::string summary = course::device_summary(0);
  INFO(summary);
  CHECK_FALSE(summary.empty());
  CHECK(contains(summary, ", sm_"));
  CHECK(contains(summary, " SMs, "));
  CHECK(contains(summary, " GiB"));
  std::ostringstream out;
  course::print_device_properties(out, 0);
  CHECK(contains(out.str(), "GPU 0: "));
  CHECK(contains(out.str(), "compute capability"));
  CHECK(contains(out.str(), "warp size"));
  CHECK_THROWS_AS(course::print_device_properties(out, s.count), course::Error);  // no such device
}
