// Lesson 11, steps 11.5 (forward) and 11.6 (backward): the direct convolutions against lesson 01
// in double, and the same bits for every thread count.
#include <cstdint>
#include <vector>

#include "conv_cases.hpp"  // tests/support: the shapes every conv lesson tests
#include "course/error.hpp"
#include "course_test.hpp"
#include "fast_cpu.hpp"
#include "host_layers.hpp"

using course::test::describe;
using course::test::nan_vector;

namespace {

// The shapes the networks give 11.5 and 11.6: lesson 02's first layer (1 channel, 3x3, pad 1) at batch 32
// and 3, and the scaling study's (no padding, many filters) at an odd batch.
std::vector<course::test::ConvCase> network_cases() {
  return {{"small CNN conv1, batch 32", {32, 1, 28, 28, 10, 3, 3, 1, 1}},
          {"small CNN conv1, batch 3", {3, 1, 28, 28, 10, 3, 3, 1, 1}},
          {"3x3 no pad, 37 filters, batch 5", {5, 1, 28, 28, 37, 3, 3, 1, 0}}};
}

}  // namespace

// Tolerances: the reduction length of each output (conv_cases.hpp), float sums against double.
// Every output poisoned with NaN first: each must be written.
namespace {
std::vector<course::test::ConvCase> every_case() {
  std::vector<course::test::ConvCase> cases = course::test::conv_cases();
  for (const course::test::ConvCase& c : network_cases()) cases.push_back(c);
  return cases;
}

// Enough work (more than 8 * kMinFlopsPerThread per pass, or close) that every thread count is used.
const std::vector<course::test::ConvCase> kBusyCases = {
    {"3x3 no pad, 130 filters, batch 101", {101, 1, 28, 28, 130, 3, 3, 1, 0}},
    {"3x3 stride 2 pad 1, 3 channels, batch 200", {200, 3, 31, 31, 40, 3, 3, 2, 1}}};
}  // namespace

// check(shape, inputs, lesson 01's results in double, threads) on every test shape, 1, 2 or 3 threads.
template <typename Check>
void on_every_shape(uint64_t seed, const Check& check) {
  using namespace course::test;
  for (const ConvCase& c : every_case()) {
    const host_layers::ConvShape& s = c.s;
    const int threads = s.batch % 3 + 1;  // 1, 2 or 3
    INFO(c.name << ": " << describe(s) << " threads=" << threads);
    const ConvInputs in = random_conv_inputs(s, seed);
    check(s, in, conv_reference(s, in), threads);
  }
}

TEST_CASE("conv2d_direct_forward equals lesson 01's conv2d_forward in double on every test shape", "[11.5]") {
  const uint64_t seed = 1151;
  COURSE_INPUT_SEED(seed);
  using namespace course::test;
  on_every_shape(seed, [](const host_layers::ConvShape& s, const ConvInputs& in, const ConvReference& ref,
                          int threads) {
    auto y = nan_vector(s.output_size());
    fast_cpu::conv2d_direct_forward(s, in.x.data(), in.W.data(), in.bias.data(), y.data(), threads);
    const auto ty = course::float_sum_atol_rtol(forward_terms(s));
    REQUIRE_TENSOR_CLOSE(y, ref.y, output_shape(s), ty.atol, ty.rtol);
  });
}

TEST_CASE("conv2d_direct_backward equals lesson 01's conv2d_backward in double on every test shape", "[11.6]") {
  const uint64_t seed = 1154;
  COURSE_INPUT_SEED(seed);
  using namespace course::test;
  on_every_shape(seed, [](const host_layers::ConvShape& s, const ConvInputs& in, const ConvReference& ref,
                          int threads) {
    auto dx = nan_vector(s.input_size()), dW = nan_vector(s.weight_size()), db = nan_vector(s.out_channels);
    const auto tdx = course::float_sum_atol_rtol(dx_terms(s)), tdw = course::float_sum_atol_rtol(dw_terms(s));
    fast_cpu::conv2d_direct_backward(s, in.x.data(), in.W.data(), in.dy.data(), dx.data(), dW.data(), db.data(),
                                     threads);
    REQUIRE_TENSOR_CLOSE(dx, ref.dx, input_shape(s), tdx.atol, tdx.rtol);
    REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_TENSOR_CLOSE(db, ref.dbias, bias_shape(s), tdw.atol, tdw.rtol);
  });
}

TEST_CASE("conv2d_direct_forward: the same bits for 1, 2, 3 and 8 threads; threads < 1 throws", "[11.5]") {
  const uint64_t seed = 1152;
  using namespace course::test;
  for (const ConvCase& c : kBusyCases) {
    const host_layers::ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const ConvInputs in = random_conv_inputs(s, seed);
    std::vector<float> y1;
    for (int threads : {1, 2, 3, 8}) {
      CAPTURE(threads);
      auto y = nan_vector(s.output_size());
      fast_cpu::conv2d_direct_forward(s, in.x.data(), in.W.data(), in.bias.data(), y.data(), threads);
      if (threads == 1) {
        y1 = y;
        const ConvReference ref = conv_reference(s, in);  // the single-thread run is right, not only repeatable
        const auto ty = course::float_sum_atol_rtol(forward_terms(s));
        REQUIRE_TENSOR_CLOSE(y, ref.y, output_shape(s), ty.atol, ty.rtol);
        continue;
      }
      REQUIRE(y == y1);
    }
    auto y = nan_vector(s.output_size());
    REQUIRE_THROWS_AS(fast_cpu::conv2d_direct_forward(s, in.x.data(), in.W.data(), in.bias.data(), y.data(), 0),
                      course::Error);
  }
}

TEST_CASE("conv2d_direct_backward: the same bits for 1, 2, 3 and 8 threads", "[11.6]") {
  const uint64_t seed = 1155;
  using namespace course::test;
  for (const ConvCase& c : kBusyCases) {
    const host_layers::ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const ConvInputs in = random_conv_inputs(s, seed);
    std::vector<float> dx1, dW1, db1;
    for (int threads : {1, 2, 3, 8}) {
      CAPTURE(threads);
      auto dx = nan_vector(s.input_size()), dW = nan_vector(s.weight_size()), db = nan_vector(s.out_channels);
      fast_cpu::conv2d_direct_backward(s, in.x.data(), in.W.data(), in.dy.data(), dx.data(), dW.data(), db.data(),
                                       threads);
      if (threads == 1) {
        dx1 = dx, dW1 = dW, db1 = db;
        const ConvReference ref = conv_reference(s, in);  // the single-thread run is right, not only repeatable
        REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), course::float_sum_atol_rtol(dw_terms(s)).atol,
                             course::float_sum_atol_rtol(dw_terms(s)).rtol);
        continue;
      }
      REQUIRE(dx == dx1);
      REQUIRE(dW == dW1);
      REQUIRE(db == db1);
    }
  }
}

TEST_CASE("conv2d_direct_backward with input_grad=false: dx untouched (or null); threads < 1 throws", "[11.6]") {
  const uint64_t seed = 1153;
  using namespace course::test;
  for (host_layers::ConvShape s : {host_layers::ConvShape{3, 1, 28, 28, 10, 3, 3, 1, 1},
                                   host_layers::ConvShape{2, 3, 17, 13, 5, 3, 5, 2, 2}}) {
    INFO(describe(s));
    const ConvInputs in = random_conv_inputs(s, seed);
    const ConvReference ref = conv_reference(s, in);
    const auto tdw = course::float_sum_atol_rtol(dw_terms(s));
    std::vector<float> dx(s.input_size(), 42.0f);  // must keep its 42s
    auto dW = nan_vector(s.weight_size()), db = nan_vector(s.out_channels);
    fast_cpu::conv2d_direct_backward(s, in.x.data(), in.W.data(), in.dy.data(), dx.data(), dW.data(), db.data(), 2,
                                     false);
    REQUIRE_ALL_CLOSE(dx, std::vector<double>(dx.size(), 42.0), 0.0, 0.0);
    REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_TENSOR_CLOSE(db, ref.dbias, bias_shape(s), tdw.atol, tdw.rtol);
    dW = nan_vector(s.weight_size()), db = nan_vector(s.out_channels);
    fast_cpu::conv2d_direct_backward(s, in.x.data(), in.W.data(), in.dy.data(), nullptr, dW.data(), db.data(), 1,
                                     false);
    REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_TENSOR_CLOSE(db, ref.dbias, bias_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_THROWS_AS(fast_cpu::conv2d_direct_backward(s, in.x.data(), in.W.data(), in.dy.data(), dx.data(),
                                                       dW.data(), db.data(), 0),
                      course::Error);
  }
}
