// Lesson 15, step 15.5 on the CPU: global average pooling against its formula in double, by hand,
// and its backward pass against finite differences.
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

using Vec = std::vector<double>;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The planes' means in double.
Vec reference(const Vec& x, int planes, int plane) {
  Vec y(size_t(planes), 0.0);
  for (int nc = 0; nc < planes; ++nc) {
    for (int p = 0; p < plane; ++p) y[size_t(nc)] += x[size_t(nc) * plane + p];
    y[size_t(nc)] /= plane;
  }
  return y;
}

}  // namespace

TEST_CASE("global_avg_pool: a case worked by hand", "[15.5]") {
  // Two images, one channel, 2 x 2 planes: means 2.5 and -1; dy = 4, 8 spreads 1 and 2 over each plane.
  const Vec x = {1, 2, 3, 4, -1, -1, -2, 0}, dy = {4, 8};
  Vec y(2, kNaN), dx(8, kNaN);
  deeper_cnns::global_avg_pool_forward<double>(x.data(), y.data(), 2, 1, 4);
  REQUIRE_ALL_CLOSE(y, (Vec{2.5, -1}), 0.0, 0.0);
  deeper_cnns::global_avg_pool_backward<double>(dy.data(), dx.data(), 2, 1, 4);
  REQUIRE_ALL_CLOSE(dx, (Vec{1, 1, 1, 1, 2, 2, 2, 2}), 0.0, 0.0);
}

TEST_CASE("global_avg_pool: the formula in double, float and double, odd sizes; finite differences",
          "[15.5]") {
  uint64_t seed = 5000;
  for (int batch : {1, 3, 16})
    for (int channels : {1, 5, 64})
      for (int plane : {1, 7 * 7, 8 * 8, 33}) {
        CAPTURE(batch, channels, plane);
        COURSE_INPUT_SEED(seed + 1);
        const int planes = batch * channels;
        const Vec x = course::random_doubles(size_t(planes) * plane, ++seed, -2.f, 3.f),
                  dy = course::random_doubles(size_t(planes), ++seed, -1.f, 1.f);
        Vec y(size_t(planes), kNaN), dx(x.size(), kNaN);
        deeper_cnns::global_avg_pool_forward<double>(x.data(), y.data(), batch, channels, plane);
        REQUIRE_NAMED_CLOSE("exercises/global_avg_pool.cpp: y", y, reference(x, planes, plane), ::course::Shape{},
                            1e-14, 1e-12);
        deeper_cnns::global_avg_pool_backward<double>(dy.data(), dx.data(), batch, channels, plane);
        // L = sum dy * y is linear in x: central differences are exact up to rounding.
        Vec q = x, numeric(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          const double h = 1e-3;
          q[i] = x[i] + h;
          const Vec up = reference(q, planes, plane);
          q[i] = x[i] - h;
          const Vec down = reference(q, planes, plane);
          q[i] = x[i];
          double L = 0;
          for (size_t k = 0; k < dy.size(); ++k) L += dy[k] * (up[k] - down[k]);
          numeric[i] = L / (2 * h);
        }
        REQUIRE_NAMED_CLOSE("exercises/global_avg_pool.cpp: dx", dx, numeric, ::course::Shape{}, 1e-10, 1e-8);
        const std::vector<float> xf(x.begin(), x.end()), dyf(dy.begin(), dy.end());
        std::vector<float> yf(size_t(planes), std::nanf("")), dxf(x.size(), std::nanf(""));
        deeper_cnns::global_avg_pool_forward<float>(xf.data(), yf.data(), batch, channels, plane);
        deeper_cnns::global_avg_pool_backward<float>(dyf.data(), dxf.data(), batch, channels, plane);
        REQUIRE_NAMED_CLOSE("exercises/global_avg_pool.cpp: y<float>", yf, y, ::course::Shape{}, 1e-6, 1e-5);
        REQUIRE_NAMED_CLOSE("exercises/global_avg_pool.cpp: dx<float>", dxf, dx, ::course::Shape{}, 1e-7, 1e-6);
      }
}

TEST_CASE("global_avg_pool refuses sizes below 1 before writing anything", "[15.5]") {
  const Vec x(4, 1.0);
  Vec y(2, kNaN), dx(4, kNaN);
  for (const std::array<int, 3>& bad : {std::array<int, 3>{0, 1, 4}, std::array<int, 3>{1, 0, 4}, std::array<int, 3>{1, 1, 0}}) {
    std::string error;
    try {
      deeper_cnns::global_avg_pool_forward<double>(x.data(), y.data(), bad[0], bad[1], bad[2]);
    } catch (const course::Error& e) {
      error = e.what();
    }
    CHECK(error.find("global_avg_pool_forward") != std::string::npos);
    CHECK_THROWS_AS(deeper_cnns::global_avg_pool_backward<double>(x.data(), dx.data(), bad[0], bad[1], bad[2]),
                    course::Error);
  }
  for (double v : y) CHECK(std::isnan(v));
  for (double v : dx) CHECK(std::isnan(v));
}
