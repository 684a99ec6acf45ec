// Lesson 15, step 15.8: a res block's adds with the ReLUs riding in them, on the GPU, against the same
// values in float on the host (one float add at most: the same bits); outputs poisoned, odd sizes and
// more values than one grid's threads, masks with values at 0, below and above it, and NaNs and
// infinities behind closed masks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

namespace {

// 1, a block and a bit, and more than lesson 03's grid of 1024 blocks of 256 threads covers at once.
const size_t kSizes[] = {1, 300, 1024 * 256 * 3 + 17};

// The index and value of the first y[i] that is not want[i] (NaN only where want is NaN), or -1.
long long first_wrong(const std::vector<float>& y, const std::vector<float>& want) {
  for (size_t i = 0; i < y.size(); ++i)
    if (!(y[i] == want[i] || (std::isnan(y[i]) && std::isnan(want[i])))) return static_cast<long long>(i);
  return -1;
}

}  // namespace

TEST_CASE("add_gpu writes a + b, through the ReLU where asked", "[15.8]") {
  uint64_t seed = 5800;
  for (size_t n : kSizes)
    for (bool relu : {false, true}) {
      CAPTURE(n, relu);
      COURSE_INPUT_SEED(seed + 1);
      const std::vector<float> a = course::random_uniform(n, ++seed, -2.f, 1.f), b = course::random_uniform(n, ++seed, -1.f, 2.f);
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) want[i] = relu ? std::max(a[i] + b[i], 0.0f) : a[i] + b[i];
      course::DeviceBuffer<float> d_a(a), d_b(b), d_y{n};
      d_y.poison();
      deeper_cnns::add_gpu(d_a.data(), d_b.data(), d_y.data(), n, relu);
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> y = d_y.to_host();
      const long long i = first_wrong(y, want);
      INFO("exercises/block_elementwise.cu: y[" << i << "] = " << (i >= 0 ? y[size_t(i)] : 0.0f) << ", want "
                                         << (i >= 0 ? want[size_t(i)] : 0.0f));
      REQUIRE(i == -1);
    }
}

TEST_CASE("add_masked_gpu passes a + b where the mask is above 0 and 0 elsewhere, NaN behind a closed mask too",
          "[15.8]") {
  uint64_t seed = 5850;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (size_t n : kSizes) {
    CAPTURE(n);
    COURSE_INPUT_SEED(seed + 1);
    std::vector<float> a = course::random_uniform(n, ++seed, -1.f, 1.f), b = course::random_uniform(n, ++seed, -1.f, 1.f);
    std::vector<float> mask = course::random_uniform(n, ++seed, -1.f, 1.f);
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) {
      if (i % 7 == 3) mask[i] = 0.0f;   // a ReLU's output of exactly 0: closed
      if (i % 5 == 1) mask[i] = -0.0f;  // closed too
      if (mask[i] <= 0.0f && i % 3 == 0) a[i] = i % 2 ? nan : inf;  // stays out behind the closed mask
      want[i] = mask[i] > 0.0f ? a[i] + b[i] : 0.0f;
    }
    course::DeviceBuffer<float> d_a(a), d_b(b), d_mask(mask), d_y{n};
    d_y.poison();
    deeper_cnns::add_masked_gpu(d_a.data(), d_b.data(), d_mask.data(), d_y.data(), n);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> y = d_y.to_host();
    const long long i = first_wrong(y, want);
    INFO("exercises/block_elementwise.cu: y[" << i << "] = " << (i >= 0 ? y[size_t(i)] : 0.0f) << " with mask "
                                       << (i >= 0 ? mask[size_t(i)] : 0.0f) << ", want "
                                       << (i >= 0 ? want[size_t(i)] : 0.0f));
    REQUIRE(i == -1);
  }
}

TEST_CASE("the passes over nothing launch nothing", "[15.8]") {
  course::DeviceBuffer<float> y{size_t(1)};
  y.poison();
  deeper_cnns::add_gpu(nullptr, nullptr, y.data(), 0, true);
  deeper_cnns::add_masked_gpu(nullptr, nullptr, nullptr, y.data(), 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(std::isnan(y.to_host()[0]));
}
