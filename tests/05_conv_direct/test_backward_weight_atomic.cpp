// Lesson 05, step 05.3: dW and dbias with atomics against lesson 01 (double), plus central
// differences of L = sum(r * y) for a few weights and every bias.
#include <cstdint>
#include <vector>

#include "conv_test_support.hpp"

using namespace conv05;

TEST_CASE("conv2d_backward_weight_atomic equals host_layers::conv2d_backward's dW and dbias", "[05.3]") {
  const uint64_t seed = 531;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : conv_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const ConvReference ref = conv_reference(c.s, in);
    const WeightGrads g = gpu_backward_weight_atomic(c.s, in);
    // dW and dbias: float sums over all N*OH*OW output positions (conv_test_support.hpp). The
    // atomics add the per-image sums in any order; the bound does not depend on the order.
    {
      INFO("dW");
      REQUIRE_TENSOR_CLOSE(g.dW, ref.dW, course::test::weight_shape(c.s), float_sum_atol(dw_terms(c.s)), 0.0);
    }
    {
      INFO("dbias");
      REQUIRE_TENSOR_CLOSE(g.dbias, ref.dbias, course::test::bias_shape(c.s), float_sum_atol(dw_terms(c.s)), 0.0);
    }
  }
}

TEST_CASE("conv2d_backward_weight_atomic overwrites its outputs (a second call does not add)", "[05.3]") {
  const uint64_t seed = 532;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 3, 11, 9, 4, 3, 3, 1, 1};
  const ConvInputs in = random_conv_inputs(s, seed);
  const ConvReference ref = conv_reference(s, in);
  course::DeviceBuffer<float> x(in.x), dy(in.dy), dW(s.weight_size()), db(s.out_channels);
  dW.poison();
  db.poison();
  for (int call = 0; call < 2; ++call)
    conv_direct::conv2d_backward_weight_atomic(s, x.data(), dy.data(), dW.data(), db.data());
  // Same bound as above: one call's result, not twice it.
  const std::vector<float> dW_got = dW.to_host(), db_got = db.to_host();
  REQUIRE_TENSOR_CLOSE(dW_got, ref.dW, course::test::weight_shape(s), float_sum_atol(dw_terms(s)), 0.0);
  REQUIRE_TENSOR_CLOSE(db_got, ref.dbias, course::test::bias_shape(s), float_sum_atol(dw_terms(s)), 0.0);
}

TEST_CASE("conv2d_backward_weight_atomic matches finite differences of L = sum(r * y)", "[05.3]") {
  const uint64_t seed = 533;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : fd_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);  // in.dy plays r
    const WeightGrads g = gpu_backward_weight_atomic(c.s, in);
    LinearLoss loss(c.s, in);
    require_fd_matches("dW", loss, loss.W, g.dW, dw_terms(c.s), seed);
    require_fd_matches("dbias", loss, loss.b, g.dbias, dw_terms(c.s), seed + 1);
  }
}
