// Lesson 09, steps 09.2-09.4: the implicit-GEMM convolutions against lesson 01's loops in double,
// on every shape the conv lessons test (tests/support/conv_cases.hpp), with every output and the
// workspace poisoned (NaN) before each call.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "conv_cases.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_training.hpp"
#include "weight_gradients.hpp"

using course::DeviceBuffer;
using course::float_sum_atol;
using course::test::conv_cases;
using course::test::conv_reference;
using course::test::ConvInputs;
using course::test::describe;
using course::test::random_conv_inputs;
using course::test::WeightGrads;
using host_layers::ConvShape;

namespace {

// Tolerances: course::float_sum_atol of each output's reduction length (conv_cases.hpp says
// why) plus 1e-5 relative, as lessons 05 and 07 allow the same sums.
constexpr double kRtol = 1e-5;

std::vector<float> forward(const ConvShape& s, const ConvInputs& in) {
  DeviceBuffer<float> x(in.x), W(in.W), b(in.bias), y(s.output_size());
  y.poison();
  fast_training::conv2d_forward_implicit(s, x.data(), W.data(), b.data(), y.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return y.to_host();
}

// The workspace is exactly the size asked for (memcheck catches a write past it) and NaN.
std::vector<float> backward_data(const ConvShape& s, const ConvInputs& in) {
  DeviceBuffer<float> W(in.W), dy(in.dy), dx(s.input_size()), work(fast_training::conv_implicit_workspace_floats(s));
  dx.poison();
  work.poison();
  fast_training::conv2d_backward_data_implicit(s, W.data(), dy.data(), dx.data(), work.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return dx.to_host();
}

WeightGrads backward_weight(const ConvShape& s, const ConvInputs& in) {
  return course::test::run_weight_gradient(
      s, in, fast_training::conv_implicit_workspace_floats(s), [&](const float* x, const float* dy, float* dW,
                                                                    float* db, float* work) {
        fast_training::conv2d_backward_weight_implicit(s, x, dy, dW, db, work);
      });
}

// Shapes too big for a case list but where the engine's edges are: many tiles along M and N,
// a reduction long enough for many split-K slices, and more key-table entries than threads.
std::vector<course::test::ConvCase> large_cases() {
  return {
      {"model A conv2, batch 16: several split-K slices", {16, 32, 14, 14, 64, 5, 5, 1, 2}},
      {"70 -> 33 channels, 3x3, 23x19 images", {4, 70, 23, 19, 33, 3, 3, 1, 1}},
      {"1 -> 130 channels: three tiles of M", {3, 1, 12, 12, 130, 3, 3, 1, 0}},
      // pad > k - 1: 09.3's flipped convolution pads by k-1-pad < 0 (it crops)
      {"1x1 kernel, pad 1", {2, 3, 5, 6, 4, 1, 1, 1, 1}},
      {"3x3 kernel, pad 3", {1, 2, 4, 5, 3, 3, 3, 1, 3}},
  };
}

template <typename Body>
void for_each_case(Body body, bool stride_one_only) {
  uint64_t seed = 900;
  std::vector<course::test::ConvCase> cases = conv_cases();
  for (const auto& c : large_cases()) cases.push_back(c);
  for (const auto& c : cases) {
    if (stride_one_only && c.s.stride != 1) continue;
    seed += 10;
    CAPTURE(c.name, describe(c.s));
    COURSE_INPUT_SEED(seed);
    body(c.s, random_conv_inputs(c.s, seed));
  }
}

}  // namespace

TEST_CASE("implicit forward equals lesson 01's conv2d in double on every test shape", "[09.2]") {
  for_each_case(
      [](const ConvShape& s, const ConvInputs& in) {
        const auto ref = conv_reference(s, in);
        const std::vector<float> y = forward(s, in);
        REQUIRE_TENSOR_CLOSE(y, ref.y, course::test::output_shape(s), float_sum_atol(course::test::forward_terms(s)),
                             kRtol);
      },
      false);
}

TEST_CASE("implicit forward: no bias (null) adds nothing; a shape without output pixels or with too many keys throws", "[09.2]") {
  const ConvShape s{2, 3, 9, 7, 5, 3, 3, 1, 1};
  ConvInputs in = random_conv_inputs(s, 77);
  DeviceBuffer<float> x(in.x), W(in.W), y(s.output_size());
  y.poison();
  fast_training::conv2d_forward_implicit(s, x.data(), W.data(), nullptr, y.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  in.bias.assign(in.bias.size(), 0.0f);
  const auto ref = conv_reference(s, in);
  const std::vector<float> got = y.to_host();
  REQUIRE_TENSOR_CLOSE(got, ref.y, course::test::output_shape(s), float_sum_atol(course::test::forward_terms(s)), kRtol);
  // A 5x5 kernel on a 3x3 image without padding has no output: refused before any launch.
  REQUIRE_THROWS_AS(fast_training::conv2d_forward_implicit({1, 1, 3, 3, 1, 5, 5, 1, 0}, nullptr, nullptr, nullptr,
                                                           nullptr),
                    course::Error);
  // 9000 channels x a 1x1 kernel: more keys than the shared-memory table holds.
  REQUIRE_THROWS_AS(fast_training::conv2d_forward_implicit({1, 9000, 3, 3, 1, 1, 1, 1, 0}, nullptr, nullptr, nullptr,
                                                           nullptr),
                    course::Error);
}

TEST_CASE("implicit backward data equals lesson 01's dx in double on every stride-1 shape", "[09.3]") {
  for_each_case(
      [](const ConvShape& s, const ConvInputs& in) {
        const auto ref = conv_reference(s, in);
        const std::vector<float> dx = backward_data(s, in);
        REQUIRE_TENSOR_CLOSE(dx, ref.dx, course::test::input_shape(s), float_sum_atol(course::test::dx_terms(s)),
                             kRtol);
      },
      true);
}

TEST_CASE("implicit backward data: stride 2 is refused with an error naming the stride, before any work",
          "[09.3]") {
  const ConvShape s{1, 2, 9, 9, 3, 3, 3, 2, 1};
  std::string error;
  bool not_written = false;
  try {
    fast_training::conv2d_backward_data_implicit(s, nullptr, nullptr, nullptr, nullptr);
  } catch (const course::NotImplemented& e) {
    not_written = true;
    error = e.what();
  } catch (const course::Error& e) {
    error = e.what();
  }
  INFO("error: '" << error << "'");
  CHECK_FALSE(not_written);
  CHECK(error.find("stride 2") != std::string::npos);
}

TEST_CASE("implicit backward weight equals lesson 01's dW and dbias in double on every test shape", "[09.4]") {
  for_each_case(
      [](const ConvShape& s, const ConvInputs& in) {
        const auto ref = conv_reference(s, in);
        const WeightGrads g = backward_weight(s, in);
        REQUIRE_TENSOR_CLOSE(g.dW, ref.dW, course::test::weight_shape(s), float_sum_atol(course::test::dw_terms(s)),
                             kRtol);
        REQUIRE_TENSOR_CLOSE(g.dbias, ref.dbias, course::test::bias_shape(s),
                             float_sum_atol(course::test::dw_terms(s)), kRtol);
      },
      false);
}

TEST_CASE("implicit backward weight: the same bits on every run (slices added in a fixed order)", "[09.4]") {
  const ConvShape s{16, 32, 14, 14, 64, 5, 5, 1, 2};
  const ConvInputs in = random_conv_inputs(s, 4242);
  const WeightGrads first = backward_weight(s, in), second = backward_weight(s, in);
  const size_t differ = course::test::bits_differing(first, second);
  INFO(differ << " of " << first.dW.size() + first.dbias.size() << " values differ between two runs");
  REQUIRE(differ == 0);
}
