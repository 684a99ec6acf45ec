// Lesson 09, steps 09.10 and 09.11: the tiled convolution's forward, dx and dW against lesson 01's
// loops in double, on every test shape it runs (and shapes at its edges), outputs and workspace
// poisoned (NaN) before each call; the shapes it refuses, with their reasons; and the fast network
// with them against lesson 08's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "conv_cases.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_network.hpp"
#include "fast_training.hpp"
#include "network.hpp"
#include "weight_gradients.hpp"
#include "band_statistics.hpp"
#include "device_download.hpp"
#include "exact_checks.hpp"

using course::DeviceBuffer;
using course::float_sum_atol;
using course::test::conv_reference;
using course::test::ConvInputs;
using course::test::describe;
using course::test::random_conv_inputs;
using course::test::WeightGrads;
using host_layers::ConvShape;

namespace {

constexpr double kRtol = 1e-5;  // as 09.2-09.4

// The shapes of conv_cases() the kernel runs, and more at its edges: more input channels than a
// chunk (and not a multiple of it), more output channels than a block (and not a multiple of 4),
// rows split across blocks, a row of several segments with a ragged end.
std::vector<course::test::ConvCase> tiled_cases() {
  std::vector<course::test::ConvCase> cases;
  for (const auto& c : course::test::conv_cases())
    if (fast_training::conv_tiled_problem(c.s).empty()) cases.push_back(c);
  const std::vector<course::test::ConvCase> more = {
      {"model A conv2, batch 5", {5, 32, 14, 14, 64, 5, 5, 1, 2}},
      {"19 -> 37 channels, 5x5 pad 1, 12x9 images", {2, 19, 12, 9, 37, 5, 5, 1, 1}},
      {"3 -> 70 channels, 3x3 pad 1, 32x32 images: rows in several blocks", {2, 3, 32, 32, 70, 3, 3, 1, 1}},
      {"9 -> 6 channels, 3x3 pad 0, 40x23 images", {3, 9, 40, 23, 6, 3, 3, 1, 0}},
      {"model A conv1 at 28x28, batch 2", {2, 1, 28, 28, 32, 5, 5, 1, 2}},
      // Blocks of other sizes: 16 channels (half the groups) on 28 x 28 in 256 threads, a 14 x 14
      // image in 128, a 7 x 7 one in 64, and 128 threads with the rows in two blocks.
      {"16 -> 16 channels, 3x3 pad 1, 28x28 images", {3, 16, 28, 28, 16, 3, 3, 1, 1}},
      {"32 -> 32 channels, 3x3 pad 1, 14x14 images", {3, 32, 14, 14, 32, 3, 3, 1, 1}},
      {"64 -> 64 channels, 3x3 pad 1, 7x7 images", {3, 64, 7, 7, 64, 3, 3, 1, 1}},
      {"12 -> 40 channels, 3x3 pad 1, 15x14 images", {2, 12, 15, 14, 40, 3, 3, 1, 1}},
      // The weight gradient's groups split the rows: in 2 parts with 12 channels (2 of 8 slots idle),
      // none with 20 (3 idle).
      {"5 -> 12 channels, 3x3 pad 1, 11x9 images", {2, 5, 11, 9, 12, 3, 3, 1, 1}},
      {"7 -> 20 channels, 3x3 pad 1, 9x10 images", {2, 7, 9, 10, 20, 3, 3, 1, 1}},
  };
  for (const auto& c : more) cases.push_back(c);
  return cases;
}

// The weights in the kernel's order, from the workspace size asked for (poisoned first: the
// layout must write every float the kernel reads, padding included).
DeviceBuffer<float> tiled_weights_of(const ConvShape& s, const DeviceBuffer<float>& W) {
  DeviceBuffer<float> t(fast_training::conv_tiled_weights_size(s));
  t.poison();
  fast_training::conv_tiled_weights(s, W.data(), t.data());
  return t;
}

std::vector<float> forward(const ConvShape& s, const ConvInputs& in, bool with_bias) {
  DeviceBuffer<float> x(in.x), W(in.W), b(in.bias), y(s.output_size());
  const DeviceBuffer<float> t = tiled_weights_of(s, W);
  y.poison();
  fast_training::conv2d_forward_tiled(s, x.data(), t.data(), with_bias ? b.data() : nullptr, y.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return y.to_host();
}

std::vector<float> backward_data(const ConvShape& s, const ConvInputs& in) {
  DeviceBuffer<float> W(in.W), dy(in.dy), dx(s.input_size());
  const DeviceBuffer<float> t = tiled_weights_of(s, W);
  dx.poison();
  fast_training::conv2d_backward_data_tiled(s, t.data(), dy.data(), dx.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return dx.to_host();
}

WeightGrads backward_weight(const ConvShape& s, const ConvInputs& in) {
  return course::test::run_weight_gradient(
      s, in, fast_training::conv_tiled_dw_workspace_floats(s), [&](const float* x, const float* dy, float* dW,
                                                                    float* db, float* work) {
        fast_training::conv2d_backward_weight_tiled(s, x, dy, dW, db, work);
      });
}

using course::test::download;

}  // namespace

TEST_CASE("tiled forward equals lesson 01's conv2d in double on every shape it runs", "[09.10]") {
  const auto cases = tiled_cases();
  REQUIRE(cases.size() >= 10);  // not an empty loop: conv_cases() has seven shapes the kernel runs
  uint64_t seed = 1000;
  for (const auto& c : cases) {
    seed += 10;
    CAPTURE(c.name, describe(c.s));
    COURSE_INPUT_SEED(seed);
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const auto ref = conv_reference(c.s, in);
    REQUIRE_TENSOR_CLOSE(forward(c.s, in, true), ref.y, course::test::output_shape(c.s),
                         float_sum_atol(course::test::forward_terms(c.s)), kRtol);
  }
}

TEST_CASE("tiled forward: no bias (null) adds nothing", "[09.10]") {
  const ConvShape s{3, 11, 9, 13, 6, 3, 3, 1, 1};
  ConvInputs in = random_conv_inputs(s, 31);
  const std::vector<float> got = forward(s, in, false);
  in.bias.assign(in.bias.size(), 0.0f);
  REQUIRE_TENSOR_CLOSE(got, conv_reference(s, in).y, course::test::output_shape(s),
                       float_sum_atol(course::test::forward_terms(s)), kRtol);
}

TEST_CASE("tiled backward data equals lesson 01's dx in double on every shape it runs", "[09.10]") {
  uint64_t seed = 2000;
  for (const auto& c : tiled_cases()) {
    seed += 10;
    CAPTURE(c.name, describe(c.s));
    COURSE_INPUT_SEED(seed);
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const auto ref = conv_reference(c.s, in);
    REQUIRE_TENSOR_CLOSE(backward_data(c.s, in), ref.dx, course::test::input_shape(c.s),
                         float_sum_atol(course::test::dx_terms(c.s)), kRtol);
  }
}

// With `stats` (given code around your 09.10): every block's count, mean and squares around the
// mean for each of its channels, against those of the y it wrote, in double. The bands of rows are
// read from the counts (the first entry's rows; every band that many but a shorter last one, the
// bands together exactly the image's rows); y lesson 01's conv2d and the same bits as without statistics; the statistics
// poisoned first, and the floats past the last channel's entries never written.
TEST_CASE("tiled forward's statistics are each block's count, mean and squares of its y", "[09.10]") {
  uint64_t seed = 1500;
  for (const auto& c : tiled_cases()) {
    const ConvShape& s = c.s;
    CAPTURE(c.name, describe(s));
    COURSE_INPUT_SEED(seed += 10);
    ConvInputs in = random_conv_inputs(s, seed);
    for (size_t o = 0; o < in.bias.size(); ++o) in.bias[o] += float(o % 5) - 1.0f;  // means far from 0
    const int OH = s.out_h(), OW = s.out_w(), O = s.out_channels;
    const size_t entries = size_t(fast_training::conv_tiled_statistics_entries(s));
    REQUIRE(entries % size_t(s.batch) == 0);
    const int bands = int(entries) / s.batch;
    DeviceBuffer<float> x(in.x), W(in.W), b(in.bias), y(s.output_size()), stats(3 * size_t(O + 1) * entries);
    const DeviceBuffer<float> t = tiled_weights_of(s, W);
    y.poison(), stats.poison();
    fast_training::conv2d_forward_tiled(s, x.data(), t.data(), b.data(), y.data(), nullptr, stats.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got_y = y.to_host(), got = stats.to_host();
    REQUIRE_TENSOR_CLOSE(got_y, conv_reference(s, in).y, course::test::output_shape(s),
                         float_sum_atol(course::test::forward_terms(s)), kRtol);  // the statistics of the right y
    REQUIRE(course::test::first_bit_difference(got_y, forward(s, in, true)) == -1);
    for (size_t i = 3 * size_t(O) * entries; i < got.size(); ++i) REQUIRE(std::isnan(got[i]));  // past the end
    const double first = double(got[0]) / OW;  // the first band's rows
    REQUIRE(first == std::floor(first));
    const int rows = int(first);
    REQUIRE((rows >= 1 && rows <= OH && (OH + rows - 1) / rows == bands));
    const course::test::BandStatisticsCheck check =
        course::test::check_band_statistics(got_y, got, s.batch, O, OH, OW, rows);
    INFO(check.bad << " entries wrong; the first: " << check.first);
    REQUIRE(check.bad == 0);
  }
}

TEST_CASE("tiled convolution: the shapes it refuses say why, and the functions throw that", "[09.10]") {
  const auto problem = fast_training::conv_tiled_problem;
  CHECK(problem({128, 32, 14, 14, 64, 5, 5, 1, 2}).empty());  // model A's conv2
  CHECK(problem({1, 3, 17, 17, 4, 3, 3, 2, 1}).find("stride 2") != std::string::npos);
  CHECK(problem({2, 3, 9, 11, 5, 3, 5, 1, 1}).find("3x5 kernel") != std::string::npos);
  CHECK(problem({1, 3, 20, 20, 4, 7, 7, 1, 3}).find("7x7 kernel") != std::string::npos);
  CHECK(problem({3, 3, 7, 9, 5, 3, 3, 1, 3}).find("pad 3") != std::string::npos);
  CHECK(problem({1, 3, 8, 300, 4, 3, 3, 1, 1}).find("rows of 300 outputs") != std::string::npos);
  CHECK(problem({1, 1, 3, 3, 1, 5, 5, 1, 0}).find("no output pixels") != std::string::npos);
  const ConvShape strided{1, 3, 17, 17, 4, 3, 3, 2, 1};
  REQUIRE_THROWS_AS(fast_training::conv2d_forward_tiled(strided, nullptr, nullptr, nullptr, nullptr), course::Error);
  REQUIRE_THROWS_AS(fast_training::conv2d_backward_data_tiled(strided, nullptr, nullptr, nullptr), course::Error);
  REQUIRE_THROWS_AS(fast_training::conv_tiled_weights(strided, nullptr, nullptr), course::Error);
}

TEST_CASE("tiled backward weight equals lesson 01's dW and dbias in double on every shape it runs", "[09.11]") {
  std::vector<course::test::ConvCase> cases = tiled_cases();
  // Many images: slices of several images each, and the last slice shorter.
  cases.push_back({"model A conv2, batch 37", {37, 32, 14, 14, 64, 5, 5, 1, 2}});
  cases.push_back({"24 -> 8 channels, 3x3 pad 1, 28x28 images, batch 130", {130, 24, 28, 28, 8, 3, 3, 1, 1}});
  uint64_t seed = 3000;
  for (const auto& c : cases) {
    seed += 10;
    CAPTURE(c.name, describe(c.s));
    COURSE_INPUT_SEED(seed);
    const ConvInputs in = random_conv_inputs(c.s, seed);
    const auto ref = conv_reference(c.s, in);
    const WeightGrads g = backward_weight(c.s, in);
    REQUIRE_TENSOR_CLOSE(g.dW, ref.dW, course::test::weight_shape(c.s), float_sum_atol(course::test::dw_terms(c.s)),
                         kRtol);
    REQUIRE_TENSOR_CLOSE(g.dbias, ref.dbias, course::test::bias_shape(c.s), float_sum_atol(course::test::dw_terms(c.s)),
                         kRtol);
  }
}

TEST_CASE("tiled backward weight: the same bits on every run; a refused shape throws", "[09.11]") {
  const ConvShape s{16, 32, 14, 14, 64, 5, 5, 1, 2};
  const ConvInputs in = random_conv_inputs(s, 4343);
  const WeightGrads first = backward_weight(s, in), second = backward_weight(s, in);
  const size_t differ = course::test::bits_differing(first, second);
  INFO(differ << " of " << first.dW.size() + first.dbias.size() << " values differ between two runs");
  REQUIRE(differ == 0);
  const ConvShape strided{1, 3, 17, 17, 4, 3, 3, 2, 1};
  REQUIRE_THROWS_AS(fast_training::conv2d_backward_weight_tiled(strided, nullptr, nullptr, nullptr, nullptr, nullptr),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::conv_tiled_dw_workspace_floats(strided), course::Error);
}

// As 09.8's test, with the tiled kernels in the network (09.10 and 09.11: its test comes last):
// model A's conv2 runs on them (conv1, one input channel, stays an implicit GEMM), and a model
// whose both convs have 8+ channels.
TEST_CASE("FastNetwork with tiled convs: logits, losses and gradients equal lesson 08's GpuNetwork's", "[09.11]") {
  struct Case {
    int height, width, batch, max_batch;
    bool wide_input;  // 8 input channels: the first conv runs tiled too
  };
  uint64_t seed = 2500;
  for (const Case& c : {Case{28, 28, 6, 8, false}, Case{15, 15, 5, 5, false}, Case{12, 12, 3, 4, true}}) {
    host_training::ModelSpec spec = host_training::model_by_name("a");
    spec.height = c.height, spec.width = c.width;
    if (c.wide_input) spec.in_channels = 8;
    CAPTURE(c.height, c.batch, c.wide_input);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, seed);
    const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
    DeviceBuffer<float> d_x(course::test::random_vector(size_t(c.batch) * per_example, seed + 1, 0.0f, 1.0f));
    std::vector<int> labels(c.batch);
    for (int b = 0; b < c.batch; ++b) labels[b] = int((seed + 7 * b) % spec.classes);
    DeviceBuffer<int> d_labels(labels);

    mnist_gpu::GpuNetwork reference(spec, init, c.max_batch, mnist_gpu::ConvAlgorithm::im2col);
    reference.forward_backward(d_x.data(), d_labels.data(), c.batch);
    const std::vector<float> ref_logits = download(reference.logits(), size_t(c.batch) * spec.classes);
    const std::vector<host_training::Parameter> ref_grads = reference.parameters().download();

    fast_training::FastNetwork net(spec, init, c.max_batch, nullptr, fast_training::ConvEngine::tiled);
    REQUIRE(net.tiled_convs() == (c.wide_input ? 2 : 1));
    CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xff, net.parameters().total() * sizeof(float)));
    net.forward_backward(d_x.data(), d_labels.data(), c.batch);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE_TENSOR_CLOSE(download(net.logits(), size_t(c.batch) * spec.classes), ref_logits,
                         course::test::matrix("b", c.batch, "c", spec.classes), 1e-4, 1e-4);
    const std::vector<host_training::Parameter> grads = net.parameters().download();
    REQUIRE(grads.size() == ref_grads.size());
    for (size_t t = 0; t < grads.size(); ++t) {
      CAPTURE(grads[t].name);
      double largest = 0;
      for (float g : ref_grads[t].grad) largest = std::max(largest, double(std::fabs(g)));
      REQUIRE_ALL_CLOSE(grads[t].grad, ref_grads[t].grad, 1e-4 * largest, 1e-3);
    }
  }
}
