// Lesson 03, step 03.1: vector_add against a plain CPU loop.
#include <cstdint>
#include <limits>
#include <vector>

#include "first_kernels.hpp"
#include "kernel_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using first_kernels_test::download_checked;
using first_kernels_test::poisoned_output;
using first_kernels_test::test_sizes;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
}

TEST_CASE("vector_add matches a CPU loop at every size, grid-stride sizes included", "[03.1]") {
  for (size_t n : test_sizes()) {
    const uint64_t seed = 301 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    // Different ranges for a and b, so a kernel that adds a to itself (or b to b) fails.
    const std::vector<float> a = random_vector(n, seed, -1.0f, 1.0f);
    const std::vector<float> b = random_vector(n, seed + 1, -8.0f, 3.0f);
    std::vector<float> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = a[i] + b[i];

    DeviceBuffer<float> d_a(a), d_b(b);
    DeviceBuffer<float> d_c = poisoned_output(n);
    first_kernels::vector_add(d_a.data(), d_b.data(), d_c.data(), n);
    const std::vector<float> got = download_checked(d_c, n, kNaN);
    // Exact (tolerance 0): one float addition per element, rounded to nearest on the CPU and
    // on the GPU alike, with nothing to fuse into an FMA: the results must be bit-identical.
    REQUIRE_ALL_CLOSE(got, ref, 0.0, 0.0);
  }
}

TEST_CASE("vector_add with n == 0 launches nothing and reports no error", "[03.1]") {
  REQUIRE_NOTHROW(first_kernels::vector_add(nullptr, nullptr, nullptr, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("vector_add works in place (c == a)", "[03.1]") {
  // Lesson 08 may accumulate into one of the inputs; each element is read before it is written.
  const size_t n = 4099;
  const uint64_t seed = 311;
  CAPTURE(n);
  COURSE_INPUT_SEED(seed);
  const std::vector<float> a = random_vector(n, seed), b = random_vector(n, seed + 1, 0.5f, 2.0f);
  std::vector<float> ref(n);
  for (size_t i = 0; i < n; ++i) ref[i] = a[i] + b[i];
  DeviceBuffer<float> d_a(a), d_b(b);
  first_kernels::vector_add(d_a.data(), d_b.data(), d_a.data(), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> got = d_a.to_host();
  REQUIRE_ALL_CLOSE(got, ref, 0.0, 0.0);  // exact: see the first test case
}
