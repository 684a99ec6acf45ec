// Lesson 05, step 05.2: the input gradient (a gather) against lesson 01 (double), plus central
// differences of L = sum(r * y) for a few entries.
#include <cstdint>
#include <vector>

#include "conv_test_support.hpp"

using namespace conv05;

TEST_CASE("conv2d_backward_input equals host_layers::conv2d_backward's dx", "[05.2]") {
  const uint64_t seed = 521;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : conv_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const std::vector<float> dx = gpu_backward_input(c.s, in);
    const ConvReference ref = conv_reference(c.s, in);
    // Each dx: a float sum of at most O*kh*kw products dy * W (conv_test_support.hpp).
    REQUIRE_TENSOR_CLOSE(dx, ref.dx, course::test::input_shape(c.s), float_sum_atol(dx_terms(c.s)), 0.0);
  }
}

TEST_CASE("conv2d_backward_input matches finite differences of L = sum(r * y)", "[05.2]") {
  const uint64_t seed = 522;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : fd_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);  // in.dy plays r
    const std::vector<float> dx = gpu_backward_input(c.s, in);
    LinearLoss loss(c.s, in);
    require_fd_matches("dx", loss, loss.x, dx, dx_terms(c.s), seed);
  }
}
