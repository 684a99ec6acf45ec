// Step 01.1: dense layer forward and backward.
#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "reference_layers.hpp"

namespace {

using l01::Vec;

// batch 2, in 3, out 2. Every value below is exact in binary floating point.
//   x = [[ 1, 2, 3],      W = [[1, 0, -1  ],      bias = [0.5, -1]
//        [-1, 0, 2]]           [2, 1,  0.5]]
template <typename T>
void check_dense_hand_case() {
  const std::vector<T> x = {1, 2, 3, -1, 0, 2};
  const std::vector<T> W = {1, 0, -1, 2, 1, 0.5};
  const std::vector<T> bias = {0.5, -1};
  std::vector<T> y(4, std::numeric_limits<T>::quiet_NaN());
  host_layers::dense_forward(x.data(), W.data(), bias.data(), y.data(), 2, 3, 2);
  // y[0][0] =  1*1 + 2*0 + 3*(-1)  + 0.5 = -1.5
  // y[0][1] =  1*2 + 2*1 + 3*0.5   - 1   =  4.5
  // y[1][0] = -1*1 + 0*0 + 2*(-1)  + 0.5 = -2.5
  // y[1][1] = -1*2 + 0*1 + 2*0.5   - 1   = -2
  const std::vector<T> y_hand = {-1.5, 4.5, -2.5, -2};
  REQUIRE_TENSOR_CLOSE(y, y_hand, l01::matrix("b", 2, "o", 2), 0.0, 0.0);  // exact: small integers and halves

  // dy = [[1, -1], [0.5, 2]]
  const std::vector<T> dy = {1, -1, 0.5, 2};
  std::vector<T> dx(6, std::numeric_limits<T>::quiet_NaN()), dW(6, std::numeric_limits<T>::quiet_NaN()),
      dbias(2, std::numeric_limits<T>::quiet_NaN());
  host_layers::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), dbias.data(), 2, 3, 2);
  // dx[b] = sum_o dy[b][o] * W[o]:
  //   dx[0] =  1*[1,0,-1] + (-1)*[2,1,0.5] = [-1, -1, -1.5]
  //   dx[1] = .5*[1,0,-1] +    2*[2,1,0.5] = [4.5, 2, 0.5]
  const std::vector<T> dx_hand = {-1, -1, -1.5, 4.5, 2, 0.5};
  // dW[o] = sum_b dy[b][o] * x[b]:
  //   dW[0] =    1*[1,2,3] + 0.5*[-1,0,2] = [0.5, 2, 4]
  //   dW[1] = (-1)*[1,2,3] +   2*[-1,0,2] = [-3, -2, 1]
  const std::vector<T> dW_hand = {0.5, 2, 4, -3, -2, 1};
  // dbias[o] = sum_b dy[b][o] = [1 + 0.5, -1 + 2]
  const std::vector<T> dbias_hand = {1.5, 1};
  REQUIRE_TENSOR_CLOSE(dx, dx_hand, l01::matrix("b", 2, "i", 3), 0.0, 0.0);
  REQUIRE_TENSOR_CLOSE(dW, dW_hand, l01::matrix("o", 2, "i", 3), 0.0, 0.0);
  REQUIRE_ALL_CLOSE(dbias, dbias_hand, 0.0, 0.0);
}

struct DenseSize {
  int batch, in, out;
};

}  // namespace

TEST_CASE("dense: hand-computed forward and backward, float and double", "[01.1]") {
  check_dense_hand_case<float>();
  check_dense_hand_case<double>();
}

TEST_CASE("dense: random sizes in float match a double reference", "[01.1]") {
  const DenseSize sizes[] = {{1, 1, 1}, {3, 17, 5}, {4, 33, 10}, {2, 784, 10}, {5, 28, 1}, {1, 3, 33}};
  uint64_t seed = 101;
  for (const DenseSize& d : sizes) {
    CAPTURE(d.batch, d.in, d.out);
    COURSE_INPUT_SEED(seed);
    const Vec x = l01::random_doubles(size_t(d.batch) * d.in, seed++);
    const Vec W = l01::random_doubles(size_t(d.out) * d.in, seed++);
    const Vec bias = l01::random_doubles(size_t(d.out), seed++);
    const Vec dy = l01::random_doubles(size_t(d.batch) * d.out, seed++);
    const auto xf = l01::to_float(x), Wf = l01::to_float(W), bf = l01::to_float(bias), dyf = l01::to_float(dy);

    std::vector<float> y = course::test::nan_vector(size_t(d.batch) * d.out);
    host_layers::dense_forward(xf.data(), Wf.data(), bf.data(), y.data(), d.batch, d.in, d.out);
    const Vec y_ref = ref::dense_forward(x, W, bias, d.batch, d.in, d.out);
    // Each y sums in + 1 terms of size <= 1 (inputs and weights lie in [-1, 1]).
    REQUIRE_TENSOR_CLOSE(y, y_ref, l01::matrix("b", d.batch, "o", d.out), l01::float_sum_atol(d.in + 1), 0.0);

    std::vector<float> dx = course::test::nan_vector(xf.size()), dW = course::test::nan_vector(Wf.size()),
                       dbias = course::test::nan_vector(bf.size());
    host_layers::dense_backward(xf.data(), Wf.data(), dyf.data(), dx.data(), dW.data(), dbias.data(), d.batch, d.in,
                                d.out);
    const ref::DenseGrads g = ref::dense_backward(x, W, dy, d.batch, d.in, d.out);
    REQUIRE_TENSOR_CLOSE(dx, g.dx, l01::matrix("b", d.batch, "i", d.in), l01::float_sum_atol(d.out), 0.0);  // sums over out
    REQUIRE_TENSOR_CLOSE(dW, g.dW, l01::matrix("o", d.out, "i", d.in), l01::float_sum_atol(d.batch), 0.0);  // over batch
    REQUIRE_ALL_CLOSE(dbias, g.dbias, l01::float_sum_atol(d.batch), 0.0);
  }
}

TEST_CASE("dense: backward matches finite differences in double", "[01.1]") {
  const DenseSize sizes[] = {{3, 7, 4}, {1, 5, 2}, {2, 1, 3}, {4, 6, 1}};
  uint64_t seed = 201;
  for (const DenseSize& d : sizes) {
    CAPTURE(d.batch, d.in, d.out);
    COURSE_INPUT_SEED(seed);
    Vec x = l01::random_doubles(size_t(d.batch) * d.in, seed++);
    Vec W = l01::random_doubles(size_t(d.out) * d.in, seed++);
    Vec bias = l01::random_doubles(size_t(d.out), seed++);
    const Vec dy = l01::random_doubles(size_t(d.batch) * d.out, seed++);
    // L = sum(dy * y), so dL/dy = dy: backward(dy) must give dL/dx, dL/dW, dL/dbias.
    auto loss = [&] { return l01::dot(dy, ref::dense_forward(x, W, bias, d.batch, d.in, d.out)); };

    Vec dx = l01::nan_doubles(x.size()), dW = l01::nan_doubles(W.size()), dbias = l01::nan_doubles(bias.size());
    host_layers::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), dbias.data(), d.batch, d.in,
                                d.out);
    l01::require_gradient_matches("x", x, dx, loss, l01::matrix("b", d.batch, "i", d.in));
    l01::require_gradient_matches("W", W, dW, loss, l01::matrix("o", d.out, "i", d.in));
    l01::require_gradient_matches("bias", bias, dbias, loss);
  }
}
