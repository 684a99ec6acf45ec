// Lesson 08, step 08.1: ConvLayer::forward and ::backward (the layer object train_mnist uses, on
// device buffers) against lesson 01's conv2d_forward / conv2d_backward in double, with both
// algorithms (lesson 05's direct kernels, lesson 07's im2col + GEMM). See layer_test_support.hpp
// for what every layer test does (NaN everywhere a pass writes, rows past the batch).
#include <cstdint>
#include <string>
#include <vector>

#include "conv_layer.hpp"
#include "course/check.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"

using course::test::random_vector;
using course::test::to_double;
using mnist_gpu::ConvAlgorithm;

namespace {

struct Case {
  const char* name;
  int in_c, height, width, out_c, kernel, stride, pad;
  int max_batch, batch;
};

// Odd image sizes, 1 and 3 input channels (and 32: model A's conv2, K = 800), kernels 1, 3 and 5,
// stride 1/2/3, padding 0/1/2, batch 1 and > 1, batches smaller than max_batch.
const Case kCases[] = {
    {"model A's conv1 on odd 15x13 images: 5x5, pad 2; batch 3 of 3", 1, 15, 13, 4, 5, 1, 2, 3, 3},
    {"3 channels, 3x3 stride 2 pad 1, 17x17; batch 2 of 5", 3, 17, 17, 5, 3, 2, 1, 5, 2},
    {"1x1 kernel, stride 2 (pixels no window reads), 9x8; batch 1 of 4", 3, 9, 8, 2, 1, 2, 0, 4, 1},
    {"3 channels, 5x5 without padding, non-square 11x9; batch 2 of 2", 3, 11, 9, 7, 5, 1, 0, 2, 2},
    {"1 channel, 3x3 stride 3 pad 1, 7x7; batch 3 of 4", 1, 7, 7, 3, 3, 3, 1, 4, 3},
    {"32 channels, 5x5 pad 2, 7x7 (model A's conv2 shape, K = 800); batch 2 of 3", 32, 7, 7, 6, 5, 1, 2, 3, 2},
};

// ---- tolerances, as lessons 05 and 07 test the same functions -----------------------------------
// Every result is a float sum of `terms` products of values in [-1, 1] (x, W, bias and dy all
// are), compared with the same sum in double: course::float_sum_atol(terms) = 8 FLT_EPSILON terms
// (course/check.hpp says why), plus 1e-5 relative for the GEMM path's blocked partial sums (as
// lesson 07's tests allow). A wrong index, a missed tap or a lost addition is off by about one
// whole term (~0.3), far more. The reduction lengths:
//   y: in_c*k*k products + the bias      dx: out_c*k*k products      dW, dbias: batch*OH*OW terms
constexpr double kRtol = 1e-5;
double forward_terms(const host_layers::ConvShape& s) { return double(s.in_channels) * s.kernel_h * s.kernel_w + 1; }
double dx_terms(const host_layers::ConvShape& s) { return double(s.out_channels) * s.kernel_h * s.kernel_w; }
double dw_terms(const host_layers::ConvShape& s) { return double(s.batch) * s.out_h() * s.out_w(); }

host_training::LayerPlan plan_of(const Case& c) {
  return layer_test::plan_of(host_training::conv_layer(c.out_c, c.kernel, c.pad, c.stride), c.in_c, c.height, c.width);
}

void check_conv(const Case& c, ConvAlgorithm algorithm, uint64_t seed) {
  INFO(c.name << ", " << mnist_gpu::conv_algorithm_name(algorithm));
  COURSE_INPUT_SEED(seed);
  const host_training::LayerPlan plan = plan_of(c);
  const size_t in = plan.in_size(), out = plan.out_size();
  const size_t weights = size_t(c.out_c) * c.in_c * c.kernel * c.kernel;
  const std::vector<float> W = random_vector(weights, seed);
  const std::vector<float> bias = random_vector(size_t(c.out_c), seed + 1);
  const std::vector<float> x = random_vector(size_t(c.batch) * in, seed + 2);
  const std::vector<float> dy = random_vector(size_t(c.batch) * out, seed + 3);

  layer_test::DeviceParam d_W(W), d_bias(bias);
  course::DeviceBuffer<float> workspace(mnist_gpu::ConvLayer::workspace_floats(plan, c.max_batch, algorithm));
  mnist_gpu::ConvLayer layer("conv", plan, c.max_batch, algorithm, d_W.view(), d_bias.view(), workspace.data());
  REQUIRE(layer.algorithm() == algorithm);
  layer_test::PassLog log;
  layer.set_observer(&log);
  const host_layers::ConvShape s = layer.shape(c.batch);

  // Lesson 01 in double on the same float values.
  std::vector<double> y_ref(s.output_size()), dx_ref(s.input_size()), dW_ref(weights), db_ref(size_t(c.out_c));
  host_layers::conv2d_forward(s, to_double(x).data(), to_double(W).data(), to_double(bias).data(), y_ref.data());
  host_layers::conv2d_backward(s, to_double(x).data(), to_double(W).data(), to_double(dy).data(), dx_ref.data(),
                               dW_ref.data(), db_ref.data());

  const course::DeviceBuffer<float> d_x = layer_test::upload_batch(x, in, c.max_batch);
  const course::DeviceBuffer<float> d_dy = layer_test::upload_batch(dy, out, c.max_batch);

  layer_test::poison(layer.output(), size_t(c.max_batch) * out);
  workspace.poison();  // its contents on entry must not matter
  layer.forward(d_x.data(), c.batch);
  const std::vector<float> y = layer_test::download_batch(layer.output(), out, c.batch, c.max_batch, "output()");
  REQUIRE_TENSOR_CLOSE(y, y_ref, course::test::output_shape(s), course::float_sum_atol(forward_terms(s)), kRtol);

  // Twice: the second backward finds the first one's gradients in place of the NaN, and must
  // still give the same values (it overwrites, it does not add).
  for (int call = 1; call <= 2; ++call) {
    CAPTURE(call);
    if (call == 1) {
      layer_test::poison(layer.input_grad(), size_t(c.max_batch) * in);
      d_W.grad.poison();
      d_bias.grad.poison();
    }
    workspace.poison();
    layer.backward(d_x.data(), d_dy.data(), c.batch);
    const std::vector<float> dx = layer_test::download_batch(layer.input_grad(), in, c.batch, c.max_batch,
                                                             "input_grad()");
    const std::vector<float> dW = d_W.downloaded_grad(), dbias = d_bias.downloaded_grad();
    REQUIRE_TENSOR_CLOSE(dx, dx_ref, course::test::input_shape(s), course::float_sum_atol(dx_terms(s)), kRtol);
    REQUIRE_TENSOR_CLOSE(dW, dW_ref, course::test::weight_shape(s), course::float_sum_atol(dw_terms(s)), kRtol);
    REQUIRE_TENSOR_CLOSE(dbias, db_ref, course::test::bias_shape(s), course::float_sum_atol(dw_terms(s)), kRtol);
  }
  // Every pass opened with check_batch (which tells --profile where it starts), once each.
  REQUIRE(log.passes == std::vector<std::string>{"conv forward", "conv backward", "conv backward"});
}

}  // namespace

TEST_CASE("conv layer, direct: forward and backward equal lesson 01's conv2d in double", "[08.1]") {
  uint64_t seed = 8101;
  for (const Case& c : kCases) check_conv(c, ConvAlgorithm::direct, seed += 10);
}

TEST_CASE("conv layer, im2col: forward and backward equal lesson 01's conv2d in double", "[08.1]") {
  uint64_t seed = 8201;
  for (const Case& c : kCases) check_conv(c, ConvAlgorithm::im2col, seed += 10);
}

TEST_CASE("conv layer: a batch outside 1..max_batch throws before any work, in both passes", "[08.1]") {
  const Case& c = kCases[1];
  const host_training::LayerPlan plan = plan_of(c);
  const std::vector<float> W = random_vector(size_t(c.out_c) * c.in_c * c.kernel * c.kernel, 8301);
  const std::vector<float> bias = random_vector(size_t(c.out_c), 8302);
  layer_test::DeviceParam d_W(W), d_bias(bias);
  for (ConvAlgorithm algorithm : {ConvAlgorithm::direct, ConvAlgorithm::im2col}) {
    INFO(mnist_gpu::conv_algorithm_name(algorithm));
    course::DeviceBuffer<float> workspace(mnist_gpu::ConvLayer::workspace_floats(plan, c.max_batch, algorithm));
    mnist_gpu::ConvLayer layer("conv", plan, c.max_batch, algorithm, d_W.view(), d_bias.view(), workspace.data());
    const course::DeviceBuffer<float> d_x = layer_test::upload_batch({}, plan.in_size(), c.max_batch + 1);
    const course::DeviceBuffer<float> d_dy = layer_test::upload_batch({}, plan.out_size(), c.max_batch + 1);
    layer_test::poison(layer.output(), size_t(c.max_batch) * plan.out_size());
    layer_test::poison(layer.input_grad(), size_t(c.max_batch) * plan.in_size());
    d_W.grad.poison();
    d_bias.grad.poison();
    for (int batch : {0, -1, c.max_batch + 1}) {
      CAPTURE(batch);
      layer_test::require_batch_rejected([&] { layer.forward(d_x.data(), batch); }, c.max_batch, "forward");
      layer_test::require_batch_rejected([&] { layer.backward(d_x.data(), d_dy.data(), batch); }, c.max_batch,
                                         "backward");
    }
    // Nothing was written: every row still holds the poison.
    layer_test::download_batch(layer.output(), plan.out_size(), 0, c.max_batch, "output()");
    layer_test::download_batch(layer.input_grad(), plan.in_size(), 0, c.max_batch, "input_grad()");
    layer_test::download_batch(d_W.grad.data(), d_W.size, 0, 1, "weight gradient");
    layer_test::download_batch(d_bias.grad.data(), d_bias.size, 0, 1, "bias gradient");
  }
}
