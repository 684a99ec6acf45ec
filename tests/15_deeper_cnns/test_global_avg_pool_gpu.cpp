// Lesson 15, step 15.5 on the GPU: the kernels against the planes' means in double; outputs poisoned,
// odd sizes, more planes and values than one grid's threads.
#include <cmath>
#include <vector>

#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

TEST_CASE("global_avg_pool kernels equal the planes' means, and spread dy evenly", "[15.5]") {
  uint64_t seed = 5100;
  for (int batch : {1, 3, 128})
    for (int channels : {1, 64, 4099})
      for (int plane : {1, 8 * 8, 33}) {
        CAPTURE(batch, channels, plane);
        COURSE_INPUT_SEED(seed + 1);
        const size_t planes = size_t(batch) * channels, n = planes * plane;
        const std::vector<float> x = course::random_uniform(n, ++seed, -2.f, 3.f),
                                 dy = course::random_uniform(planes, ++seed, -1.f, 1.f);
        std::vector<double> want_y(planes, 0.0), want_dx(n);
        for (size_t nc = 0; nc < planes; ++nc) {
          for (int p = 0; p < plane; ++p) want_y[nc] += x[nc * plane + p];
          want_y[nc] /= plane;
          for (int p = 0; p < plane; ++p) want_dx[nc * plane + p] = double(dy[nc]) / plane;
        }
        course::DeviceBuffer<float> d_x(x), d_dy(dy), d_y{planes}, d_dx{n};
        d_y.poison(), d_dx.poison();
        deeper_cnns::global_avg_pool_forward_gpu(d_x.data(), d_y.data(), batch, channels, plane);
        deeper_cnns::global_avg_pool_backward_gpu(d_dy.data(), d_dx.data(), batch, channels, plane);
        CUDA_CHECK(cudaDeviceSynchronize());
        // A float sum of up to 64 values: a few ulps of their magnitude (~3).
        REQUIRE_NAMED_CLOSE("exercises/global_avg_pool.cu: y", d_y.to_host(), want_y, ::course::Shape{}, 1e-5, 1e-5);
        REQUIRE_NAMED_CLOSE("exercises/global_avg_pool.cu: dx", d_dx.to_host(), want_dx, ::course::Shape{}, 1e-7, 1e-6);
      }
}

TEST_CASE("global_avg_pool launchers refuse sizes below 1 before any launch", "[15.5]") {
  course::DeviceBuffer<float> x(std::vector<float>{1, 2}), y{size_t(2)};
  y.poison();
  CHECK_THROWS_AS(deeper_cnns::global_avg_pool_forward_gpu(x.data(), y.data(), 0, 1, 2), course::Error);
  CHECK_THROWS_AS(deeper_cnns::global_avg_pool_backward_gpu(x.data(), y.data(), 1, 1, 0), course::Error);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : y.to_host()) CHECK(std::isnan(v));
}
