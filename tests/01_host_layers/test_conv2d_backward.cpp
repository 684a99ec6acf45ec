// Step 01.3: 2-D convolution backward. The tests take the forward pass from the test's
// reference, so this step can be checked before or after 01.2.
#include "conv_shapes.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "reference_layers.hpp"

namespace {

using l01::Vec;

struct Grads {
  Vec dx, dW, dbias;
};
// Runs the exercise's backward in double on outputs poisoned with NaN.
Grads run_backward(const host_layers::ConvShape& s, const Vec& x, const Vec& W, const Vec& dy) {
  Grads g{l01::nan_doubles(s.input_size()), l01::nan_doubles(s.weight_size()),
          l01::nan_doubles(size_t(s.out_channels))};
  host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), g.dx.data(), g.dW.data(), g.dbias.data());
  return g;
}

}  // namespace

TEST_CASE("conv2d backward: hand case, 2x2 kernel, stride 1, no padding", "[01.3]") {
  // x = [[1,2,3],[4,5,6],[7,8,9]], W = [[1,2],[3,4]], dy = [[1,-1],[2,0.5]]; out 2x2.
  const auto s = l01::conv_shape(1, 1, 3, 3, 1, 2, 2, 1, 0);
  const Vec x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, W = {1, 2, 3, 4}, dy = {1, -1, 2, 0.5};
  const Grads g = run_backward(s, x, W, dy);
  // dbias = 1 - 1 + 2 + 0.5 = 2.5
  // dW[kh][kw] = sum_{oh,ow} dy[oh][ow] * x[oh+kh][ow+kw]:
  //   dW[0][0] = 1*1 - 1*2 + 2*4 + 0.5*5 =  9.5     dW[0][1] = 1*2 - 1*3 + 2*5 + 0.5*6 = 12
  //   dW[1][0] = 1*4 - 1*5 + 2*7 + 0.5*8 = 17       dW[1][1] = 1*5 - 1*6 + 2*8 + 0.5*9 = 19.5
  // dx[ih][iw] = sum of dy[oh][ow] * W[ih-oh][iw-ow] over the windows that cover (ih, iw):
  //   dx[0] = [1*1,  1*2 - 1*1,  -1*2]                             = [1, 1, -2]
  //   dx[1] = [1*3 + 2*1,  1*4 - 1*3 + 2*2 + 0.5*1,  -1*4 + 0.5*2]  = [5, 5.5, -3]
  //   dx[2] = [2*3,  2*4 + 0.5*3,  0.5*4]                          = [6, 9.5, 2]
  const Vec dx_hand = {1, 1, -2, 5, 5.5, -3, 6, 9.5, 2}, dW_hand = {9.5, 12, 17, 19.5}, dbias_hand = {2.5};
  REQUIRE_TENSOR_CLOSE(g.dx, dx_hand, l01::input_shape(s), 0.0, 0.0);  // exact: integers and halves
  REQUIRE_TENSOR_CLOSE(g.dW, dW_hand, l01::weight_shape(s), 0.0, 0.0);
  REQUIRE_TENSOR_CLOSE(g.dbias, dbias_hand, l01::bias_shape(s), 0.0, 0.0);
}

TEST_CASE("conv2d backward: hand case, 3x3 ones kernel, stride 2, padding 1", "[01.3]") {
  // x[r][c] = 4 r + c + 1 on 4x4, W all ones, dy all ones; out 2x2. Window (oh, ow) covers
  // rows 2 oh - 1 .. 2 oh + 1: rows {0,1} and {1,2,3}, the same for columns.
  const auto s = l01::conv_shape(1, 1, 4, 4, 1, 3, 3, 2, 1);
  const Vec x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const Grads g = run_backward(s, x, Vec(9, 1.0), Vec(4, 1.0));
  // dx[r][c] = (windows covering row r) * (windows covering col c); per row: [1, 2, 1, 1].
  const Vec dx_hand = {1, 2, 1, 1,  //
                       2, 4, 2, 2,  //
                       1, 2, 1, 1,  //
                       1, 2, 1, 1};
  // dW[kh][kw] = sum over windows of x[2 oh - 1 + kh][2 ow - 1 + kw] (0 in the padding).
  // Kernel row kh reads image rows {kh - 1, kh + 1}: kh=0 -> {1} (row -1 is padding),
  // kh=1 -> {0, 2}, kh=2 -> {1, 3}; the same for columns.
  //   kh=0: x[1][1]                        = 6;  x[1][0]+x[1][2] = 5+7 = 12;  x[1][1]+x[1][3] = 6+8 = 14
  //   kh=1: x[0][1]+x[2][1] = 2+10         = 12; 1+3+9+11 = 24;               2+4+10+12 = 28
  //   kh=2: x[1][1]+x[3][1] = 6+14         = 20; 5+7+13+15 = 40;              6+8+14+16 = 44
  const Vec dW_hand = {6, 12, 14, 12, 24, 28, 20, 40, 44};
  const Vec dbias_hand = {4};  // four outputs, each dy = 1
  REQUIRE_TENSOR_CLOSE(g.dx, dx_hand, l01::input_shape(s), 0.0, 0.0);
  REQUIRE_TENSOR_CLOSE(g.dW, dW_hand, l01::weight_shape(s), 0.0, 0.0);
  REQUIRE_TENSOR_CLOSE(g.dbias, dbias_hand, l01::bias_shape(s), 0.0, 0.0);
}

TEST_CASE("conv2d backward: matches finite differences in double", "[01.3]") {
  uint64_t seed = 500;
  for (const auto& s : l01::small_conv_shapes()) {
    INFO(l01::describe(s));
    COURSE_INPUT_SEED(seed);
    Vec x = l01::random_doubles(s.input_size(), seed++);
    Vec W = l01::random_doubles(s.weight_size(), seed++);
    Vec bias = l01::random_doubles(size_t(s.out_channels), seed++);
    const Vec dy = l01::random_doubles(s.output_size(), seed++);
    // L = sum(dy * conv(x, W, bias)), so dL/dy = dy.
    auto loss = [&] { return l01::dot(dy, ref::conv2d_forward(s, x, W, bias)); };
    const Grads g = run_backward(s, x, W, dy);
    l01::require_gradient_matches("x", x, g.dx, loss, l01::input_shape(s));
    l01::require_gradient_matches("W", W, g.dW, loss, l01::weight_shape(s));
    l01::require_gradient_matches("bias", bias, g.dbias, loss);
  }
}

TEST_CASE("conv2d backward: random shapes in float and double match the reference", "[01.3]") {
  uint64_t seed = 600;
  for (const auto& s : l01::random_conv_shapes()) {
    INFO(l01::describe(s));
    COURSE_INPUT_SEED(seed);
    const Vec x = l01::random_doubles(s.input_size(), seed++);
    const Vec W = l01::random_doubles(s.weight_size(), seed++);
    const Vec dy = l01::random_doubles(s.output_size(), seed++);
    const ref::ConvGrads expected = ref::conv2d_backward(s, x, W, dy);

    // dx sums at most O*kh*kw terms; dW and dbias sum N*out_h*out_w terms; all of size <= 1.
    const size_t per_dx = size_t(s.out_channels) * s.kernel_h * s.kernel_w;
    const size_t per_dW = size_t(s.batch) * s.out_h() * s.out_w();

    const Grads gd = run_backward(s, x, W, dy);  // double vs double: only the summation order differs
    REQUIRE_TENSOR_CLOSE(gd.dx, expected.dx, l01::input_shape(s), l01::double_sum_atol(per_dx), 0.0);
    REQUIRE_TENSOR_CLOSE(gd.dW, expected.dW, l01::weight_shape(s), l01::double_sum_atol(per_dW), 0.0);
    REQUIRE_TENSOR_CLOSE(gd.dbias, expected.dbias, l01::bias_shape(s), l01::double_sum_atol(per_dW), 0.0);

    const auto xf = l01::to_float(x), Wf = l01::to_float(W), dyf = l01::to_float(dy);
    std::vector<float> dx = course::test::nan_vector(s.input_size()), dW = course::test::nan_vector(s.weight_size()),
                       dbias = course::test::nan_vector(size_t(s.out_channels));
    host_layers::conv2d_backward(s, xf.data(), Wf.data(), dyf.data(), dx.data(), dW.data(), dbias.data());
    REQUIRE_TENSOR_CLOSE(dx, expected.dx, l01::input_shape(s), l01::float_sum_atol(per_dx), 0.0);
    REQUIRE_TENSOR_CLOSE(dW, expected.dW, l01::weight_shape(s), l01::float_sum_atol(per_dW), 0.0);
    REQUIRE_TENSOR_CLOSE(dbias, expected.dbias, l01::bias_shape(s), l01::float_sum_atol(per_dW), 0.0);
  }
}
