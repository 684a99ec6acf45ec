// Lesson 09, steps 09.5 and 09.6: the fused kernels against lesson 01's separate layers in double,
// outputs poisoned before every call.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_training.hpp"
#include "host_layers.hpp"
#include "pooling.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using course::test::to_double;
using host_layers::PoolShape;

namespace {

// Values on a grid of 0.25 in [-1, 1]: ties inside windows (the first-maximum rule matters),
// exact zeros (the ReLU's edge) and windows with nothing positive all happen.
std::vector<float> coarse_values(size_t n, uint64_t seed) {
  std::vector<float> v = random_vector(n, seed);
  for (float& x : v) x = std::round(x * 4.0f) / 4.0f;
  return v;
}

struct PoolCase {
  std::string name;
  PoolShape s;  // {batch, channels, height, width, window, stride}
};

std::vector<PoolCase> pool_cases() {
  return {
      {"2x2 stride 2, even image", {2, 3, 8, 6, 2, 2}},
      {"2x2 stride 2, odd image (last row and column dropped)", {3, 2, 7, 9, 2, 2}},
      {"3x3 stride 2: overlapping windows", {2, 3, 11, 9, 3, 2}},
      {"3x3 stride 1: every input in up to 9 windows", {1, 2, 7, 8, 3, 1}},
      {"2x2 stride 3: inputs in no window", {2, 2, 8, 8, 2, 3}},
      {"3x3 stride 3, 11x10 image: the last rows and column in no window", {2, 3, 11, 10, 3, 3}},
      {"1x1 window", {2, 2, 3, 5, 1, 1}},
      {"model A pool1 (batch 4)", {4, 32, 28, 28, 2, 2}},
  };
}

}  // namespace

TEST_CASE("relu_maxpool_forward equals lesson 01's relu then maxpool; argmax -1 where nothing is positive",
          "[09.5]") {
  uint64_t seed = 950;
  size_t empty = 0;  // windows with nothing positive, over all cases
  for (const auto& c : pool_cases()) {
    const PoolShape& s = c.s;
    CAPTURE(c.name);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = coarse_values(s.input_size(), seed);
    std::vector<double> relu_x(x.size()), y_ref(s.output_size());
    const std::vector<double> xd = to_double(x);
    host_layers::relu_forward(xd.data(), relu_x.data(), xd.size());
    std::vector<int> lesson01_argmax(s.output_size());
    host_layers::maxpool_forward(s, relu_x.data(), y_ref.data(), lesson01_argmax.data());

    DeviceBuffer<float> d_x(x), d_y(s.output_size());
    DeviceBuffer<int> d_argmax(s.output_size());
    d_y.poison();
    CUDA_CHECK(cudaMemset(d_argmax.data(), 0x7f, d_argmax.bytes()));  // no valid index, not -1
    fast_training::relu_maxpool_forward(s, d_x.data(), d_y.data(), d_argmax.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> y = d_y.to_host();
    REQUIRE_TENSOR_CLOSE(y, y_ref, course::test::output_shape(s), 0.0, 0.0);  // a maximum is exact
    const std::vector<int> argmax = d_argmax.to_host();
    size_t wrong = 0, first_wrong = 0;
    for (size_t o = 0; o < argmax.size(); ++o) {
      // The ReLU'd window's first maximum, as lesson 01 picks it, where that maximum is positive.
      const int expected = y_ref[o] > 0 ? lesson01_argmax[o] : -1;
      empty += expected == -1;
      if (argmax[o] != expected && wrong++ == 0) first_wrong = o;
    }
    INFO(wrong << " argmax entries differ; the first at output " << first_wrong << ": got " << argmax[first_wrong]);
    REQUIRE(wrong == 0);
  }
  REQUIRE(empty > 0);  // the inputs did reach windows with nothing positive
}

TEST_CASE("relu_maxpool_forward's argmax with lesson 06's backward gives relu and maxpool's dx", "[09.5]") {
  uint64_t seed = 970;
  for (const auto& c : pool_cases()) {
    const PoolShape& s = c.s;
    CAPTURE(c.name);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = coarse_values(s.input_size(), seed), dy = random_vector(s.output_size(), seed + 1);
    // Lesson 01: relu, pool, pool backward, relu backward, in double.
    const std::vector<double> xd = to_double(x), dyd = to_double(dy);
    std::vector<double> relu_x(x.size()), y(s.output_size()), d_relu(x.size()), dx_ref(x.size());
    std::vector<int> argmax_ref(s.output_size());
    host_layers::relu_forward(xd.data(), relu_x.data(), xd.size());
    host_layers::maxpool_forward(s, relu_x.data(), y.data(), argmax_ref.data());
    host_layers::maxpool_backward(s, argmax_ref.data(), dyd.data(), d_relu.data());
    host_layers::relu_backward(xd.data(), d_relu.data(), dx_ref.data(), xd.size());

    DeviceBuffer<float> d_x(x), d_y(s.output_size()), d_dy(dy), d_dx(s.input_size());
    DeviceBuffer<int> d_argmax(s.output_size());
    d_dx.poison();
    fast_training::relu_maxpool_forward(s, d_x.data(), d_y.data(), d_argmax.data());
    pooling::maxpool_backward_argmax(s, d_argmax.data(), d_dy.data(), d_dx.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> dx = d_dx.to_host();
    // Each dx adds the dy of at most ceil(window / stride)^2 windows.
    const double terms = std::pow(std::ceil(double(s.window) / s.stride), 2);
    REQUIRE_TENSOR_CLOSE(dx, dx_ref, course::test::input_shape(s), course::float_sum_atol(terms), 0.0);
  }
}

TEST_CASE("relu_maxpool_backward equals lesson 06's backward on the same argmax; every input written", "[09.5]") {
  uint64_t seed = 990;
  int checked = 0;
  for (const auto& c : pool_cases()) {
    const PoolShape& s = c.s;
    if (s.stride != s.window) continue;  // overlapping windows: its own test below
    ++checked;
    CAPTURE(c.name);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = coarse_values(s.input_size(), seed), dy = random_vector(s.output_size(), seed + 1);
    DeviceBuffer<float> d_x(x), d_y(s.output_size()), d_dy(dy), d_ref(s.input_size()), d_dx(s.input_size());
    DeviceBuffer<int> d_argmax(s.output_size());
    fast_training::relu_maxpool_forward(s, d_x.data(), d_y.data(), d_argmax.data());
    pooling::maxpool_backward_argmax(s, d_argmax.data(), d_dy.data(), d_ref.data());  // lesson 06: the reference
    for (int run = 0; run < 2; ++run) {  // twice: it overwrites, it does not add
      CAPTURE(run);
      d_dx.poison();
      fast_training::relu_maxpool_backward(s, d_argmax.data(), d_dy.data(), d_dx.data());
      CUDA_CHECK(cudaDeviceSynchronize());
      // Non-overlapping windows: each dx is one dy or 0 on both sides, no sum: exact.
      REQUIRE_TENSOR_CLOSE(d_dx.to_host(), d_ref.to_host(), course::test::input_shape(s), 0.0, 0.0);
    }
  }
  REQUIRE(checked >= 4);
}

TEST_CASE("relu_maxpool_backward: overlapping windows and bad shapes throw before any work", "[09.5]") {
  REQUIRE_THROWS_AS(fast_training::relu_maxpool_backward({2, 3, 11, 9, 3, 2}, nullptr, nullptr, nullptr),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::relu_maxpool_backward({1, 1, 3, 3, 4, 4}, nullptr, nullptr, nullptr),
                    course::Error);
}

TEST_CASE("relu_maxpool_forward: a window larger than the image throws before any work", "[09.5]") {
  REQUIRE_THROWS_AS(fast_training::relu_maxpool_forward({1, 1, 3, 3, 4, 4}, nullptr, nullptr, nullptr), course::Error);
}

namespace {

// Lesson 01's softmax-cross-entropy in double: each row's loss (the mean loss of a batch of one)
// and the gradient of the batch's mean loss.
void softmax_reference(const std::vector<float>& logits, const std::vector<int>& labels, int batch, int classes,
                       std::vector<double>& row_loss, std::vector<double>& dlogits) {
  const std::vector<double> z = to_double(logits);
  std::vector<double> probs(z.size());
  row_loss.assign(batch, 0.0);
  for (int b = 0; b < batch; ++b)
    row_loss[b] = host_layers::softmax_cross_entropy_forward(z.data() + size_t(b) * classes, &labels[b],
                                                             probs.data() + size_t(b) * classes, 1, classes);
  dlogits.assign(z.size(), 0.0);
  host_layers::softmax_cross_entropy_backward(probs.data(), labels.data(), dlogits.data(), batch, classes);
}

struct FusedResult {
  std::vector<float> row_loss, dlogits;
};
FusedResult run_fused(const std::vector<float>& logits, const std::vector<int>& labels, int batch, int classes) {
  DeviceBuffer<float> d_z(logits), d_loss(static_cast<size_t>(batch)), d_dz(logits.size());
  DeviceBuffer<int> d_labels(labels);
  d_loss.poison();
  d_dz.poison();
  fast_training::softmax_cross_entropy_fused(d_z.data(), d_labels.data(), d_loss.data(), d_dz.data(), batch, classes);
  CUDA_CHECK(cudaDeviceSynchronize());
  return {d_loss.to_host(), d_dz.to_host()};
}

}  // namespace

TEST_CASE("softmax_cross_entropy_fused equals lesson 01's loss per row and gradient, in double", "[09.6]") {
  uint64_t seed = 990;
  for (const auto& [batch, classes] : std::vector<std::pair<int, int>>{
           {1, 1}, {3, 10}, {128, 10}, {5, 33}, {7, 257}, {2, 1000}, {300, 3}}) {
    CAPTURE(batch, classes);
    ++seed;
    COURSE_INPUT_SEED(seed);
    std::vector<float> logits = random_vector(size_t(batch) * classes, seed);
    for (float& z : logits) z *= 8.0f;  // logits of a trained network: differences of several units
    std::vector<int> labels(batch);
    for (int b = 0; b < batch; ++b) labels[b] = int((seed * 7 + b * 13) % classes);
    std::vector<double> loss_ref, dz_ref;
    softmax_reference(logits, labels, batch, classes, loss_ref, dz_ref);
    const FusedResult got = run_fused(logits, labels, batch, classes);
    // A row's sum of exponentials adds `classes` terms <= 1; the loss is log of it minus a
    // difference of logits (each with a relative rounding): float_sum_atol(classes + 8), relative
    // the same. Each gradient element is a probability (<= 1) minus 0 or 1, over batch.
    const double tol = course::float_sum_atol(classes + 8.0);
    REQUIRE_TENSOR_CLOSE(got.row_loss, loss_ref, course::test::matrix("b", batch, "-", 1), tol, tol);
    REQUIRE_TENSOR_CLOSE(got.dlogits, dz_ref, course::test::matrix("b", batch, "c", classes), tol / batch, tol);
  }
}

TEST_CASE("softmax_cross_entropy_fused: logits of 1e4 stay finite; a bad label gives NaN in its row only",
          "[09.6]") {
  const int batch = 4, classes = 6;
  std::vector<float> logits = random_vector(size_t(batch) * classes, 31);
  for (float& z : logits) z = z * 1e4f;
  std::vector<int> labels = {0, 5, 6, -1};  // rows 2 and 3: outside 0..5
  const FusedResult got = run_fused(logits, labels, batch, classes);
  std::vector<float> good_logits(logits.begin(), logits.begin() + 2 * classes);
  std::vector<double> loss_ref, dz_ref;
  softmax_reference(good_logits, {0, 5}, 2, classes, loss_ref, dz_ref);
  for (int b = 0; b < 2; ++b) {
    CAPTURE(b);
    REQUIRE(std::isfinite(got.row_loss[b]));
    // 1e4-sized logits: the loss is a difference of two such values, rounded relative to 1e4.
    REQUIRE(std::fabs(got.row_loss[b] - loss_ref[b]) <= 1e4 * 1e-6 + 1e-6 * std::fabs(loss_ref[b]));
    for (int c = 0; c < classes; ++c)
      // batch 4 here, 2 in the reference: the gradient of the mean loss scales with 1/batch. A
      // logit difference near 1e4 rounds by up to 1e-3 in float, moving a probability by that much.
      REQUIRE(std::fabs(got.dlogits[size_t(b) * classes + c] - dz_ref[size_t(b) * classes + c] * 2 / batch) <= 1e-3);
  }
  for (int b = 2; b < 4; ++b) {
    CAPTURE(b);
    REQUIRE(std::isnan(got.row_loss[b]));
    for (int c = 0; c < classes; ++c) REQUIRE(std::isnan(got.dlogits[size_t(b) * classes + c]));
  }
}

TEST_CASE("softmax_cross_entropy_fused: batch 0 launches nothing; classes < 1 or batch < 0 throws", "[09.6]") {
  REQUIRE_NOTHROW(fast_training::softmax_cross_entropy_fused(nullptr, nullptr, nullptr, nullptr, 0, 10));
  REQUIRE_THROWS_AS(fast_training::softmax_cross_entropy_fused(nullptr, nullptr, nullptr, nullptr, 3, 0),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::softmax_cross_entropy_fused(nullptr, nullptr, nullptr, nullptr, -1, 10),
                    course::Error);
  CUDA_CHECK(cudaDeviceSynchronize());
}
