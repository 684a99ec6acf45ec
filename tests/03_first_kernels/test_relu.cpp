// Lesson 03, step 03.1: relu_forward and relu_backward against lesson 01's CPU versions
// (host_layers_ref, built from solutions/).
#include <cstdint>
#include <limits>
#include <vector>

#include "first_kernels.hpp"
#include "host_layers.hpp"
#include "kernel_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using first_kernels_test::download_checked;
using first_kernels_test::poisoned_output;
using first_kernels_test::test_sizes;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Random values in [-1, 1) with exact zeros (every 5th element, some of them -0.0): the
// gradient at exactly 0 is 0, and `x >= 0` instead of `x > 0` must fail.
std::vector<float> relu_input(size_t n, uint64_t seed) {
  std::vector<float> x = random_vector(n, seed, -1.0f, 1.0f);
  for (size_t i = 0; i < n; i += 5) x[i] = (i % 10 == 0) ? 0.0f : -0.0f;
  return x;
}

}  // namespace

// Tolerance 0 in this file: ReLU only compares and copies, no arithmetic, so the GPU and
// lesson 01 must give bit-identical results (a -0.0 against +0.0 compares equal).

TEST_CASE("relu_forward matches lesson 01 at every size", "[03.1]") {
  for (size_t n : test_sizes()) {
    const uint64_t seed = 321 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = relu_input(n, seed);
    std::vector<float> ref(n);
    host_layers::relu_forward(x.data(), ref.data(), n);

    DeviceBuffer<float> d_x(x);
    DeviceBuffer<float> d_y = poisoned_output(n);
    first_kernels::relu_forward(d_x.data(), d_y.data(), n);
    const std::vector<float> got = download_checked(d_y, n, kNaN);
    REQUIRE_ALL_CLOSE(got, ref, 0.0, 0.0);
  }
}

TEST_CASE("relu_backward matches lesson 01 at every size", "[03.1]") {
  for (size_t n : test_sizes()) {
    const uint64_t seed = 331 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = relu_input(n, seed);
    // dy in a range away from 0, so dx == dy and dx == 0 can never be confused.
    std::vector<float> dy = random_vector(n, seed + 1, 0.5f, 2.0f);
    for (size_t i = 1; i < n; i += 2) dy[i] = -dy[i];
    std::vector<float> ref(n);
    host_layers::relu_backward(x.data(), dy.data(), ref.data(), n);

    DeviceBuffer<float> d_x(x), d_dy(dy);
    DeviceBuffer<float> d_dx = poisoned_output(n);
    first_kernels::relu_backward(d_x.data(), d_dy.data(), d_dx.data(), n);
    const std::vector<float> got = download_checked(d_dx, n, kNaN);
    REQUIRE_ALL_CLOSE(got, ref, 0.0, 0.0);
  }
}

TEST_CASE("relu: hand-computed values, exact zeros included", "[03.1]") {
  const std::vector<float> x = {-2.0f, -0.0f, 0.0f, 1e-30f, 3.5f, -1e-30f, 7.0f};
  const std::vector<float> dy = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f};
  const std::vector<float> y_expected = {0.0f, 0.0f, 0.0f, 1e-30f, 3.5f, 0.0f, 7.0f};
  const std::vector<float> dx_expected = {0.0f, 0.0f, 0.0f, 4.0f, 5.0f, 0.0f, 7.0f};
  const size_t n = x.size();
  DeviceBuffer<float> d_x(x), d_dy(dy);
  DeviceBuffer<float> d_y = poisoned_output(n), d_dx = poisoned_output(n);
  first_kernels::relu_forward(d_x.data(), d_y.data(), n);
  first_kernels::relu_backward(d_x.data(), d_dy.data(), d_dx.data(), n);
  const std::vector<float> y = download_checked(d_y, n, kNaN), dx = download_checked(d_dx, n, kNaN);
  REQUIRE_ALL_CLOSE(y, y_expected, 0.0, 0.0);
  REQUIRE_ALL_CLOSE(dx, dx_expected, 0.0, 0.0);
}

TEST_CASE("relu with n == 0 launches nothing and reports no error", "[03.1]") {
  REQUIRE_NOTHROW(first_kernels::relu_forward(nullptr, nullptr, 0));
  REQUIRE_NOTHROW(first_kernels::relu_backward(nullptr, nullptr, nullptr, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
}
