// Step 01.2: 2-D convolution forward.
#include "conv_shapes.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "reference_layers.hpp"

namespace {

using l01::Vec;

// The 4x4 image used by the hand cases: x[r][c] = 4 r + c + 1.
//    1  2  3  4
//    5  6  7  8
//    9 10 11 12
//   13 14 15 16
const std::vector<float> kImage4x4 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

}  // namespace

TEST_CASE("conv2d forward: hand case, 3x3 kernel, stride 1, no padding", "[01.2]") {
  const auto s = l01::conv_shape(1, 1, 4, 4, 1, 3, 3, 1, 0);  // out 2x2
  // W = [[1,0,0],[0,1,0],[0,0,-1]]: y[i][j] = x[i][j] + x[i+1][j+1] - x[i+2][j+2] + 0.5
  const std::vector<float> W = {1, 0, 0, 0, 1, 0, 0, 0, -1};
  const std::vector<float> bias = {0.5f};
  std::vector<float> y = course::test::nan_vector(s.output_size());
  host_layers::conv2d_forward(s, kImage4x4.data(), W.data(), bias.data(), y.data());
  // y[0][0] = 1 + 6 - 11 + 0.5 = -3.5     y[0][1] = 2 + 7 - 12 + 0.5 = -2.5
  // y[1][0] = 5 + 10 - 15 + 0.5 = 0.5     y[1][1] = 6 + 11 - 16 + 0.5 = 1.5
  const std::vector<float> y_hand = {-3.5f, -2.5f, 0.5f, 1.5f};
  REQUIRE_TENSOR_CLOSE(y, y_hand, l01::output_shape(s), 0.0, 0.0);  // exact: integers and halves
}

TEST_CASE("conv2d forward: hand case, stride 2, padding 1", "[01.2]") {
  // out = (4 + 2*1 - 3) / 2 + 1 = 2. Output channel 0 sums its window (all-ones kernel);
  // channel 1 picks the window's centre (kernel 1 in the middle) and adds bias 100.
  const auto s = l01::conv_shape(1, 1, 4, 4, 2, 3, 3, 2, 1);
  const std::vector<float> W = {1, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                0, 0, 0, 0, 1, 0, 0, 0, 0};
  const std::vector<float> bias = {0, 100};
  std::vector<float> y = course::test::nan_vector(s.output_size());
  host_layers::conv2d_forward(s, kImage4x4.data(), W.data(), bias.data(), y.data());
  // Window (oh, ow) covers rows 2 oh - 1 .. 2 oh + 1 and cols 2 ow - 1 .. 2 ow + 1; row/col -1 is padding (0).
  //   (0,0): rows 0..1, cols 0..1          = 1+2+5+6                 = 14   centre x[0][0] = 1
  //   (0,1): rows 0..1, cols 1..3          = 2+3+4+6+7+8             = 30   centre x[0][2] = 3
  //   (1,0): rows 1..3, cols 0..1          = 5+6+9+10+13+14          = 57   centre x[2][0] = 9
  //   (1,1): rows 1..3, cols 1..3          = 6+7+8+10+11+12+14+15+16 = 99   centre x[2][2] = 11
  const std::vector<float> y_hand = {14, 30, 57, 99, 101, 103, 109, 111};
  REQUIRE_TENSOR_CLOSE(y, y_hand, l01::output_shape(s), 0.0, 0.0);
}

TEST_CASE("conv2d forward: hand case, 2 images, 2 input and 2 output channels, 1x1 kernel", "[01.2]") {
  // x [2,2,1,2]: image 0 = channel 0 [1, 2], channel 1 [3, 4]; image 1 = [-1, 0], [2, -2].
  // W [2,2,1,1]: output 0 = 1*c0 + 10*c1; output 1 = -1*c0 + 0.5*c1 + 1 (bias).
  const auto s = l01::conv_shape(2, 2, 1, 2, 2, 1, 1, 1, 0);
  const std::vector<float> x = {1, 2, 3, 4, -1, 0, 2, -2};
  const std::vector<float> W = {1, 10, -1, 0.5f};
  const std::vector<float> bias = {0, 1};
  std::vector<float> y = course::test::nan_vector(s.output_size());
  host_layers::conv2d_forward(s, x.data(), W.data(), bias.data(), y.data());
  // image 0, out 0: [1 + 30, 2 + 40]           = [31, 42]
  // image 0, out 1: [-1 + 1.5 + 1, -2 + 2 + 1] = [1.5, 1]
  // image 1, out 0: [-1 + 20, 0 - 20]          = [19, -20]
  // image 1, out 1: [1 + 1 + 1, 0 - 1 + 1]     = [3, 0]
  const std::vector<float> y_hand = {31, 42, 1.5f, 1, 19, -20, 3, 0};
  REQUIRE_TENSOR_CLOSE(y, y_hand, l01::output_shape(s), 0.0, 0.0);
}

TEST_CASE("conv2d forward: random shapes in float and double match the reference", "[01.2]") {
  uint64_t seed = 400;
  for (const auto& s : l01::random_conv_shapes()) {
    INFO(l01::describe(s));
    COURSE_INPUT_SEED(seed);
    const Vec x = l01::random_doubles(s.input_size(), seed++);
    const Vec W = l01::random_doubles(s.weight_size(), seed++);
    const Vec bias = l01::random_doubles(size_t(s.out_channels), seed++);
    const Vec y_ref = ref::conv2d_forward(s, x, W, bias);

    const auto xf = l01::to_float(x), Wf = l01::to_float(W), bf = l01::to_float(bias);
    std::vector<float> y = course::test::nan_vector(s.output_size());
    host_layers::conv2d_forward(s, xf.data(), Wf.data(), bf.data(), y.data());
    // Each output sums C*kh*kw + 1 terms of size <= 1.
    const size_t terms = size_t(s.in_channels) * s.kernel_h * s.kernel_w + 1;
    REQUIRE_TENSOR_CLOSE(y, y_ref, l01::output_shape(s), l01::float_sum_atol(terms), 0.0);

    Vec yd = l01::nan_doubles(s.output_size());
    host_layers::conv2d_forward(s, x.data(), W.data(), bias.data(), yd.data());
    // double vs double: the summation order only
    REQUIRE_TENSOR_CLOSE(yd, y_ref, l01::output_shape(s), l01::double_sum_atol(terms), 0.0);
  }
}
