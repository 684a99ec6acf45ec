// DeviceBuffer on a GPU: copies, poison, zero, moves, and out of memory that leaves the
// device usable. (No kernels: only runtime calls, so this is a plain .cpp file.)
#include <cmath>
#include <cstring>

#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "test_files.hpp"

using course::DeviceBuffer;
using course::test::contains;

namespace {
bool all_bits_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
}  // namespace

TEST_CASE("upload then download gives back the same bits, for odd sizes", "[device_buffer_gpu]") {
  for (size_t n : {size_t{1}, size_t{17}, size_t{33}, size_t{1000003}}) {
    const uint64_t seed = 40 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    auto host = course::test::random_vector(n, seed, -5.0f, 5.0f);
    host[0] = -0.0f;  // signed zero survives a copy too
    DeviceBuffer<float> d(n);
    CHECK(d.size() == n);
    CHECK(d.bytes() == n * sizeof(float));
    REQUIRE(d.data() != nullptr);
    d.upload(host);
    CHECK(all_bits_equal(d.to_host(), host));
    DeviceBuffer<float> from_vector(host);  // the constructor that uploads
    CHECK(all_bits_equal(from_vector.to_host(), host));
  }
  std::vector<int> ints = {3, -7, 2147483647, 0, -2147483647 - 1};
  DeviceBuffer<int> di(ints);
  CHECK(di.to_host() == ints);
}

TEST_CASE("partial copies touch only the first elements; too-large copies are refused", "[device_buffer_gpu]") {
  DeviceBuffer<float> d(10);
  d.zero();
  const std::vector<float> three = {1, 2, 3};
  d.upload(three.data(), 3);
  const auto back = d.to_host();
  CHECK(back[2] == 3.0f);
  CHECK(back[3] == 0.0f);
  std::vector<float> first(2, -1.0f);
  d.download(first.data(), 2);
  CHECK(first == std::vector<float>{1, 2});
  CHECK_THROWS_AS(d.upload(std::vector<float>(11)), course::Error);
  std::vector<float> big(11);
  CHECK_THROWS_AS(d.download(big.data(), 11), course::Error);
}

TEST_CASE("poison() fills NaN (float) and -1 (int); zero() fills 0", "[device_buffer_gpu]") {
  DeviceBuffer<float> f(course::test::random_vector(37, 5));
  f.poison();
  for (float v : f.to_host()) REQUIRE(std::isnan(v));
  f.zero();
  for (float v : f.to_host()) REQUIRE(v == 0.0f);
  DeviceBuffer<int> i(std::vector<int>(19, 42));
  i.poison();
  for (int v : i.to_host()) REQUIRE(v == -1);
}

TEST_CASE("moves hand the memory over and leave the source empty", "[device_buffer_gpu]") {
  const auto host = course::test::random_vector(100, 6);
  DeviceBuffer<float> a(host);
  float* const ptr = a.data();
  DeviceBuffer<float> b(std::move(a));
  CHECK(b.data() == ptr);
  CHECK(b.size() == 100);
  CHECK(a.data() == nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  CHECK(a.size() == 0);
  CHECK(b.to_host() == host);

  DeviceBuffer<float> c(5);  // its memory is freed by the assignment
  c = std::move(b);
  CHECK(c.data() == ptr);
  CHECK(b.data() == nullptr);  // NOLINT(bugprone-use-after-move)
  CHECK(c.to_host() == host);
  DeviceBuffer<float>& same = c;
  c = std::move(same);  // self-move keeps the buffer
  CHECK(c.data() == ptr);
  CHECK(c.size() == 100);
}

TEST_CASE("an impossible allocation throws CudaError and the GPU still works after", "[device_buffer_gpu]") {
  const size_t one_pib = size_t{1} << 50;
  try {
    DeviceBuffer<char> huge(one_pib);
    FAIL("allocating 1 PiB did not throw");
  } catch (const course::CudaError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(e.code() == cudaErrorMemoryAllocation);
    CHECK(contains(msg, "out of device memory"));
    CHECK(contains(msg, "asked for 1048576.0 GiB"));
    CHECK(contains(msg, " free of "));
  }
  CHECK(cudaGetLastError() == cudaSuccess);  // the error was cleared
  const auto host = course::test::random_vector(1000, 7);
  DeviceBuffer<float> after(host);
  CHECK(after.to_host() == host);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  // A count whose byte size overflows size_t is refused before cudaMalloc.
  CHECK_THROWS_AS(DeviceBuffer<double>(size_t{1} << 62), course::Error);
}
