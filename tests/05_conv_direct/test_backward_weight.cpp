// Lesson 05, step 05.4: race-free dW and dbias against lesson 01 (double), central differences
// of L = sum(r * y), and determinism: repeated calls give the same bits.
#include <cstdint>
#include <vector>

#include "conv_test_support.hpp"

using namespace conv05;

TEST_CASE("conv2d_backward_weight equals host_layers::conv2d_backward's dW and dbias", "[05.4]") {
  const uint64_t seed = 541;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : conv_cases()) {
    const conv_direct::WeightGradSplit split = conv_direct::weight_grad_split(c.s);
    INFO(c.name << ": " << describe(c.s) << ", " << split.chunks << " chunk(s) of " << split.rows_per_chunk
                << " row(s)");
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const ConvReference ref = conv_reference(c.s, in);
    const WeightGrads g = gpu_backward_weight(c.s, in);
    // dW and dbias: float sums over all N*OH*OW output positions (conv_test_support.hpp); split
    // into chunks or not, the bound holds.
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

TEST_CASE("conv2d_backward_weight is deterministic: three calls, the same bits", "[05.4]") {
  const uint64_t seed = 542;
  COURSE_INPUT_SEED(seed);
  const std::vector<ConvCase> cases = {
      {"model A conv1 (batch 3): many chunks of 1 row", {3, 1, 28, 28, 32, 5, 5, 1, 2}},
      {"uneven chunks", {5, 16, 13, 11, 40, 5, 5, 1, 2}},
      {"model A conv2 (batch 3)", {3, 32, 14, 14, 64, 5, 5, 1, 2}},
  };
  for (const ConvCase& c : cases) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const ConvReference ref = conv_reference(c.s, in);
    const WeightGrads first = gpu_backward_weight(c.s, in);
    // Equal bits alone would also hold for an output left NaN: the first call must be right.
    // bound as above
    REQUIRE_TENSOR_CLOSE(first.dW, ref.dW, course::test::weight_shape(c.s), float_sum_atol(dw_terms(c.s)), 0.0);
    REQUIRE_TENSOR_CLOSE(first.dbias, ref.dbias, course::test::bias_shape(c.s), float_sum_atol(dw_terms(c.s)), 0.0);
    for (int run = 2; run <= 3; ++run) {
      CAPTURE(run);
      const WeightGrads again = gpu_backward_weight(c.s, in);
      REQUIRE(again.dW == first.dW);  // none is NaN (checked above): == compares every value exactly
      REQUIRE(again.dbias == first.dbias);
    }
  }
}

TEST_CASE("conv2d_backward_weight overwrites its outputs and reuses its workspace", "[05.4]") {
  const uint64_t seed = 543;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 3, 11, 9, 4, 3, 3, 1, 1};
  const ConvInputs in = random_conv_inputs(s, seed);
  const ConvReference ref = conv_reference(s, in);
  course::DeviceBuffer<float> x(in.x), dy(in.dy), dW(s.weight_size()), db(s.out_channels);
  course::DeviceBuffer<float> work(conv_direct::conv2d_backward_weight_workspace(s));
  dW.poison();
  db.poison();
  work.poison();
  for (int call = 0; call < 2; ++call)
    conv_direct::conv2d_backward_weight(s, x.data(), dy.data(), dW.data(), db.data(), work.data());
  // Same bound as above: one call's result, not twice it.
  const std::vector<float> dW_got = dW.to_host(), db_got = db.to_host();
  REQUIRE_TENSOR_CLOSE(dW_got, ref.dW, course::test::weight_shape(s), float_sum_atol(dw_terms(s)), 0.0);
  REQUIRE_TENSOR_CLOSE(db_got, ref.dbias, course::test::bias_shape(s), float_sum_atol(dw_terms(s)), 0.0);
}

TEST_CASE("conv2d_backward_weight matches finite differences of L = sum(r * y)", "[05.4]") {
  const uint64_t seed = 544;
  COURSE_INPUT_SEED(seed);
  for (const ConvCase& c : fd_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const ConvInputs in = random_conv_inputs(c.s, seed);  // in.dy plays r
    const WeightGrads g = gpu_backward_weight(c.s, in);
    LinearLoss loss(c.s, in);
    require_fd_matches("dW", loss, loss.W, g.dW, dw_terms(c.s), seed);
    require_fd_matches("dbias", loss, loss.b, g.dbias, dw_terms(c.s), seed + 1);
  }
}
