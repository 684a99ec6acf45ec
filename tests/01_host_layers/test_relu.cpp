// Step 01.1: ReLU forward and backward.
#include <algorithm>
#include <cmath>

#include "host_layers.hpp"
#include "layer_test_support.hpp"

namespace {

template <typename T>
void check_relu_hand_case() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> x = {-2, -0.5, 0, 0.25, 3};
  std::vector<T> y(x.size(), nan);
  host_layers::relu_forward(x.data(), y.data(), x.size());
  const std::vector<T> y_hand = {0, 0, 0, 0.25, 3};  // max(x, 0)
  REQUIRE_ALL_CLOSE(y, y_hand, 0.0, 0.0);

  const std::vector<T> dy = {1, 2, 3, 4, 5};
  std::vector<T> dx(x.size(), nan);
  host_layers::relu_backward(x.data(), dy.data(), dx.data(), x.size());
  // dy passes where x > 0; at x == 0 exactly the gradient is taken as 0.
  const std::vector<T> dx_hand = {0, 0, 0, 4, 5};
  REQUIRE_ALL_CLOSE(dx, dx_hand, 0.0, 0.0);
}

}  // namespace

TEST_CASE("relu: hand-computed forward and backward, float and double", "[01.1]") {
  check_relu_hand_case<float>();
  check_relu_hand_case<double>();
}

TEST_CASE("relu: random values of odd lengths", "[01.1]") {
  for (size_t n : {size_t(1), size_t(17), size_t(1000), size_t(28 * 28 * 3)}) {
    const uint64_t seed = 300 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = course::test::random_vector(n, seed);
    const std::vector<float> dy = course::test::random_vector(n, seed + 1);
    std::vector<float> y = course::test::nan_vector(n), dx = course::test::nan_vector(n);
    host_layers::relu_forward(x.data(), y.data(), n);
    host_layers::relu_backward(x.data(), dy.data(), dx.data(), n);
    std::vector<float> y_expected(n), dx_expected(n);
    for (size_t i = 0; i < n; ++i) {  // the definition, element by element
      y_expected[i] = x[i] > 0 ? x[i] : 0.0f;
      dx_expected[i] = x[i] > 0 ? dy[i] : 0.0f;
    }
    REQUIRE_ALL_CLOSE(y, y_expected, 0.0, 0.0);  // exact: ReLU only copies or zeroes
    REQUIRE_ALL_CLOSE(dx, dx_expected, 0.0, 0.0);
  }
}

TEST_CASE("relu: backward matches finite differences in double", "[01.1]") {
  const size_t n = 37;
  const uint64_t seed = 350;
  COURSE_INPUT_SEED(seed);
  l01::Vec x = l01::random_doubles(n, seed);
  // Keep every input at least 1e-3 from the kink at 0, so x +- eps never crosses it.
  for (double& v : x)
    if (std::fabs(v) < 1e-3) v = 0.5;
  const l01::Vec dy = l01::random_doubles(n, seed + 1);
  auto loss = [&] {
    double L = 0;
    for (size_t i = 0; i < n; ++i) L += dy[i] * std::max(x[i], 0.0);  // L = sum(dy * relu(x))
    return L;
  };
  l01::Vec dx = l01::nan_doubles(n);
  host_layers::relu_backward(x.data(), dy.data(), dx.data(), n);
  l01::require_gradient_matches("x", x, dx, loss);
}
