// Step 01.4: max-pooling forward and backward, with the first-maximum tie rule.
#include <algorithm>
#include <cmath>

#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "reference_layers.hpp"

namespace {

using l01::Vec;

host_layers::PoolShape pool_shape(int n, int c, int h, int w, int window, int stride) {
  host_layers::PoolShape s;
  s.batch = n, s.channels = c, s.height = h, s.width = w, s.window = window, s.stride = stride;
  return s;
}

std::string describe(const host_layers::PoolShape& s) {
  return "x [" + std::to_string(s.batch) + "," + std::to_string(s.channels) + "," + std::to_string(s.height) + "," +
         std::to_string(s.width) + "], window " + std::to_string(s.window) + ", stride " + std::to_string(s.stride);
}

struct PoolOut {
  std::vector<float> y;
  std::vector<int> argmax;
};
// The exercise's forward in float, outputs poisoned (NaN; -1 for argmax).
PoolOut run_forward(const host_layers::PoolShape& s, const std::vector<float>& x) {
  PoolOut r{course::test::nan_vector(s.output_size()), std::vector<int>(s.output_size(), -1)};
  host_layers::maxpool_forward(s, x.data(), r.y.data(), r.argmax.data());
  return r;
}
std::vector<float> run_backward(const host_layers::PoolShape& s, const std::vector<int>& argmax,
                                const std::vector<float>& dy) {
  std::vector<float> dx = course::test::nan_vector(s.input_size());
  host_layers::maxpool_backward(s, argmax.data(), dy.data(), dx.data());
  return dx;
}

}  // namespace

TEST_CASE("maxpool: hand case, 2x2 windows, stride 2, with ties", "[01.4]") {
  // x (4x4), flat index = 4 r + c:       windows:
  //    1  3 | 2  0                        (0,0): {1,3,4,2}  max 4 at index 4
  //    4  2 | 5  1                        (0,1): {2,0,5,1}  max 5 at index 6
  //   ------+------                       (1,0): {0,0,0,0}  tie: the first, index 8
  //    0  0 | 7  7                        (1,1): {7,7,7,6}  tie: the first 7, index 10
  //    0  0 | 7  6
  const auto s = pool_shape(1, 1, 4, 4, 2, 2);
  const std::vector<float> x = {1, 3, 2, 0, 4, 2, 5, 1, 0, 0, 7, 7, 0, 0, 7, 6};
  const PoolOut f = run_forward(s, x);
  const std::vector<float> y_hand = {4, 5, 0, 7};
  REQUIRE_TENSOR_CLOSE(f.y, y_hand, l01::output_shape(s), 0.0, 0.0);  // exact: max copies a value
  REQUIRE(f.argmax == std::vector<int>({4, 6, 8, 10}));

  // Backward with dy = [1, 2, 3, 4]: each dy lands on its window's argmax, nowhere else.
  const std::vector<float> dx = run_backward(s, f.argmax, {1, 2, 3, 4});
  const std::vector<float> dx_hand = {0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 0, 0, 0, 0};
  REQUIRE_TENSOR_CLOSE(dx, dx_hand, l01::input_shape(s), 0.0, 0.0);
}

TEST_CASE("maxpool: a window of equal values sends its gradient to exactly one element", "[01.4]") {
  // 6x6 of the same value, window 3, stride 3: four windows, every element ties.
  const auto s = pool_shape(1, 1, 6, 6, 3, 3);
  const std::vector<float> x(36, 7.0f);
  const PoolOut f = run_forward(s, x);
  // The first element of each window in row-major order: its top-left corner.
  REQUIRE(f.argmax == std::vector<int>({0, 3, 18, 21}));
  const std::vector<float> dx = run_backward(s, f.argmax, {1.5f, -2, 0.25f, 8});
  const auto nonzero = std::count_if(dx.begin(), dx.end(), [](float v) { return v != 0.0f; });
  CHECK(nonzero == 4);  // one element per window, not 9 and not a share of 1/9 each
  CHECK(dx[0] == 1.5f);
  CHECK(dx[3] == -2.0f);
  CHECK(dx[18] == 0.25f);
  CHECK(dx[21] == 8.0f);
}

TEST_CASE("maxpool: hand case, overlapping windows (2x2, stride 1) add their gradients", "[01.4]") {
  // x (3x4), flat index = 4 r + c:    windows (2x2, stride 1), out 2x3:
  //   1 5 2 0                          (0,0) {1,5,3,4} -> 5 @1   (0,1) {5,2,4,9} -> 9 @6   (0,2) {2,0,9,1} -> 9 @6
  //   3 4 9 1                          (1,0) {3,4,0,2} -> 4 @5   (1,1) {4,9,2,6} -> 9 @6   (1,2) {9,1,6,8} -> 9 @6
  //   0 2 6 8
  const auto s = pool_shape(1, 1, 3, 4, 2, 1);
  const std::vector<float> x = {1, 5, 2, 0, 3, 4, 9, 1, 0, 2, 6, 8};
  const PoolOut f = run_forward(s, x);
  const std::vector<float> y_hand = {5, 9, 9, 4, 9, 9};
  REQUIRE_TENSOR_CLOSE(f.y, y_hand, l01::output_shape(s), 0.0, 0.0);
  REQUIRE(f.argmax == std::vector<int>({1, 6, 6, 5, 6, 6}));
  // dy = [[1,2,3],[4,5,6]]: dx[1] = 1, dx[5] = 4, dx[6] = 2 + 3 + 5 + 6 = 16.
  const std::vector<float> dx = run_backward(s, f.argmax, {1, 2, 3, 4, 5, 6});
  const std::vector<float> dx_hand = {0, 1, 0, 0, 0, 4, 16, 0, 0, 0, 0, 0};
  REQUIRE_TENSOR_CLOSE(dx, dx_hand, l01::input_shape(s), 0.0, 0.0);  // exact: small integers
}

TEST_CASE("maxpool: random shapes match the reference, with and without ties", "[01.4]") {
  const host_layers::PoolShape shapes[] = {
      pool_shape(1, 1, 1, 1, 1, 1),    // one pixel
      pool_shape(2, 3, 17, 13, 2, 2),  // odd sizes: the last row and column are dropped
      pool_shape(1, 2, 28, 28, 2, 2),  // MNIST-sized
      pool_shape(3, 1, 33, 17, 3, 2),  // overlapping windows
      pool_shape(2, 2, 9, 11, 3, 3),   // window = stride
      pool_shape(1, 4, 10, 7, 2, 3),   // stride > window: some inputs are in no window
      pool_shape(2, 1, 8, 8, 5, 1),    // large overlap
      pool_shape(1, 1, 5, 5, 5, 5),    // one window covers the image
  };
  uint64_t seed = 700;
  for (const auto& s : shapes)
    for (bool quantized : {false, true}) {
      INFO(describe(s) << (quantized ? ", values rounded to multiples of 0.25 (many ties)" : ""));
      COURSE_INPUT_SEED(seed);
      Vec x = l01::random_doubles(s.input_size(), seed++);
      if (quantized)
        for (double& v : x) v = std::round(v * 4) / 4;
      const Vec dy = l01::random_doubles(s.output_size(), seed++);
      const ref::PoolResult expected = ref::maxpool_forward(s, x);

      const PoolOut f = run_forward(s, l01::to_float(x));
      REQUIRE_TENSOR_CLOSE(f.y, expected.y, l01::output_shape(s), 0.0, 0.0);  // exact: x is float-representable, max copies it
      REQUIRE(f.argmax == expected.argmax);

      // Backward from the reference's argmax, so a forward mistake does not hide here.
      const std::vector<float> dx = run_backward(s, expected.argmax, l01::to_float(dy));
      // Each dx adds at most window^2 values of dy (overlaps).
      REQUIRE_TENSOR_CLOSE(dx, ref::maxpool_backward(s, expected.argmax, dy), l01::input_shape(s),
                           l01::float_sum_atol(size_t(s.window) * s.window), 0.0);

      // argmax may be nullptr: y alone is then written.
      std::vector<float> y_only = course::test::nan_vector(s.output_size());
      const auto xf = l01::to_float(x);
      host_layers::maxpool_forward<float>(s, xf.data(), y_only.data(), nullptr);
      REQUIRE_TENSOR_CLOSE(y_only, expected.y, l01::output_shape(s), 0.0, 0.0);
    }
}

TEST_CASE("maxpool: backward matches finite differences in double", "[01.4]") {
  const host_layers::PoolShape shapes[] = {pool_shape(2, 2, 7, 6, 3, 2), pool_shape(1, 3, 6, 6, 2, 2),
                                           pool_shape(2, 1, 9, 5, 3, 1)};
  uint64_t seed = 800;
  for (const auto& s : shapes) {
    INFO(describe(s));
    COURSE_INPUT_SEED(seed);
    // Distinct values at least 1/n apart (a shuffled ramp), so x +- eps never changes a window's
    // maximum: max-pool is then linear around x and the central difference is exact.
    const size_t n = s.input_size();
    course::Rng rng(seed++);
    const std::vector<int> order = rng.permutation(static_cast<int>(n));
    Vec x(n);
    for (size_t i = 0; i < n; ++i) x[i] = (order[i] + 0.5) / double(n) - 0.5;
    const Vec dy = l01::random_doubles(s.output_size(), seed++);
    auto loss = [&] { return l01::dot(dy, ref::maxpool_forward(s, x).y); };

    Vec y = l01::nan_doubles(s.output_size()), dx = l01::nan_doubles(n);
    std::vector<int> argmax(s.output_size(), -1);
    host_layers::maxpool_forward(s, x.data(), y.data(), argmax.data());
    host_layers::maxpool_backward(s, argmax.data(), dy.data(), dx.data());
    l01::require_gradient_matches("x", x, dx, loss, l01::input_shape(s));
  }
}
