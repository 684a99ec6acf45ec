// Lesson 03, step 03.2: bias_add_nchw (in place) against a plain CPU loop.
// An in-place output cannot be poisoned: instead the expected result is computed on the CPU
// from the inputs, and every bias is at least 0.25 away from 0, so a kernel that leaves y
// unchanged (the stub) or skips an element fails.
#include <cstdint>
#include <string>
#include <vector>

#include "first_kernels.hpp"
#include "kernel_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using first_kernels_test::download_checked;
using first_kernels_test::guarded_copy;

namespace {

constexpr float kGuardValue = 1234.5f;  // in the guard zone after y: must stay as it is

struct Shape {
  int batch, channels, plane;
};

std::string describe(const Shape& s) {
  return "batch " + std::to_string(s.batch) + ", channels " + std::to_string(s.channels) + ", plane " +
         std::to_string(s.plane);
}

// Biases with |b| in [0.25, 1], alternating signs: non-zero, and different per channel.
std::vector<float> bias_values(int channels, uint64_t seed) {
  std::vector<float> b = random_vector(size_t(channels), seed, 0.25f, 1.0f);
  for (size_t c = 1; c < b.size(); c += 2) b[c] = -b[c];
  return b;
}

void check_bias_add(const Shape& s, uint64_t seed) {
  const size_t rows = size_t(s.batch) * s.channels, n = rows * size_t(s.plane);
  const std::vector<float> y0 = random_vector(n, seed, -1.0f, 1.0f);
  const std::vector<float> bias = bias_values(s.channels, seed + 1);
  // y[n][c][p] += bias[c]: the plain loop over (row = n*C + c, p).
  std::vector<float> ref = y0;
  for (size_t row = 0; row < rows; ++row)
    for (size_t p = 0; p < size_t(s.plane); ++p) ref[row * s.plane + p] += bias[row % s.channels];

  DeviceBuffer<float> d_y = guarded_copy(y0, kGuardValue);
  DeviceBuffer<float> d_bias(bias);
  first_kernels::bias_add_nchw(d_y.data(), d_bias.data(), s.batch, s.channels, s.plane);
  const std::vector<float> got = download_checked(d_y, n, kGuardValue);
  // Exact (tolerance 0): one float addition per element, rounded the same on CPU and GPU.
  REQUIRE_ALL_CLOSE(got, ref, 0.0, 0.0);
  REQUIRE(d_bias.to_host() == bias);  // the bias is read, never written
}

}  // namespace

TEST_CASE("bias_add_nchw matches a CPU loop on odd shapes", "[03.2]") {
  const std::vector<Shape> shapes = {
      {1, 1, 1},        // one element
      {1, 3, 17},       // plane smaller than a block
      {2, 3, 28 * 28},  // MNIST-sized planes, batch > 1
      {5, 7, 33},       // nothing is a multiple of anything
      {3, 16, 1000},
      {4, 1, 257},      // one channel; the plane is one element past a block
  };
  for (const Shape& s : shapes) {
    const uint64_t seed = 341 + size_t(s.batch) * 1000003 + size_t(s.channels) * 1009 + s.plane;
    INFO(describe(s));
    COURSE_INPUT_SEED(seed);
    check_bias_add(s, seed);
  }
}

TEST_CASE("bias_add_nchw covers grids larger than the launch: grid-stride in x and y", "[03.2]") {
  // x: a plane of more than kGridCapacity values (the grid's x extent is capped at kMaxBlocks
  //    blocks), so each thread handles several positions of the plane.
  // y: more than kMaxPlanesInGrid = 65535 planes (the hardware limit of gridDim.y), so
  //    blocks loop over several planes.
  const int big_plane = static_cast<int>(first_kernels::kGridCapacity) + 1001;
  const int many_channels = first_kernels::kMaxPlanesInGrid / 3 + 5;  // x batch 3 > 65535 planes
  const std::vector<Shape> shapes = {{1, 2, big_plane}, {3, many_channels, 3}};
  for (const Shape& s : shapes) {
    const uint64_t seed = 351 + size_t(s.channels) + s.plane;
    INFO(describe(s));
    COURSE_INPUT_SEED(seed);
    check_bias_add(s, seed);
  }
}

TEST_CASE("bias_add_nchw with an empty shape launches nothing and reports no error", "[03.2]") {
  REQUIRE_NOTHROW(first_kernels::bias_add_nchw(nullptr, nullptr, 0, 3, 5));
  REQUIRE_NOTHROW(first_kernels::bias_add_nchw(nullptr, nullptr, 2, 3, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
}
