// Lesson 05, step 05.1: the direct convolution forward pass against lesson 01 (double).
#include <cstdint>
#include <vector>

#include "conv_test_support.hpp"

using namespace conv05;

TEST_CASE("conv2d_forward equals host_layers::conv2d_forward", "[05.1]") {
  const uint64_t seed = 501;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : conv_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const std::vector<float> y = gpu_forward(c.s, in);
    const ConvReference ref = conv_reference(c.s, in);
    // Each output: a float sum of C*kh*kw products plus the bias (conv_test_support.hpp).
    REQUIRE_TENSOR_CLOSE(y, ref.y, course::test::output_shape(c.s), float_sum_atol(forward_terms(c.s)), 0.0);
  }
}

TEST_CASE("conv2d_forward: zero weights give exactly the bias, at every output", "[05.1]") {
  // Hand-computed: y[n][oc][oh][ow] = bias[oc] + a sum of products that are all 0.0f, which float
  // adds exactly, so the result is bias[oc] to the last bit (tolerance 0).
  const uint64_t seed = 502;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 2, 9, 7, 5, 3, 5, 2, 2};
  ConvInputs in = random_conv_inputs(s, seed);
  in.W.assign(in.W.size(), 0.0f);
  std::vector<float> expected(s.output_size());
  const size_t plane = size_t(s.out_h()) * s.out_w();
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = in.bias[i / plane % s.out_channels];
  const std::vector<float> y = gpu_forward(s, in);
  REQUIRE_TENSOR_CLOSE(y, expected, course::test::output_shape(s), 0.0, 0.0);
}

TEST_CASE("conv2d_forward: a repeated call gives the same bits", "[05.1]") {
  const uint64_t seed = 503;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 3, 17, 13, 4, 5, 5, 1, 2};
  const ConvInputs in = random_conv_inputs(s, seed);
  const std::vector<float> first = gpu_forward(s, in);
  REQUIRE(course::first_nonfinite(first.data(), first.size()) == -1);
  REQUIRE(first == gpu_forward(s, in));  // one thread per output, a fixed order: no reason to differ
}
