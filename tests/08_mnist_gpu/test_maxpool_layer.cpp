// Lesson 08, step 08.1: MaxPoolLayer::forward and ::backward (the layer object train_mnist uses,
// on device buffers) against lesson 01's maxpool_forward / maxpool_backward in double. See
// layer_test_support.hpp for what every layer test does (NaN everywhere a pass writes, rows past
// the batch).
#include <cstdint>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/rng.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "maxpool_layer.hpp"

using course::test::random_vector;
using course::test::to_double;

namespace {

struct Case {
  const char* name;
  int channels, height, width, window, stride;
  int max_batch, batch;
};

const Case kCases[] = {
    {"2x2 stride 2 on odd 15x13 (the last row and column are dropped), 3 channels; batch 3 of 4", 3, 15, 13, 2, 2, 4, 3},
    {"3x3 stride 2: overlapping windows, 1 channel, 9x9; batch 2 of 2", 1, 9, 9, 3, 2, 2, 2},
    {"3x3 stride 3 on 8x10, 3 channels; batch 1 of 3", 3, 8, 10, 3, 3, 3, 1},
    {"model A's pool1, 32 x 28 x 28; batch 2 of 2", 32, 28, 28, 2, 2, 2, 2},
};

// ---- tolerances ------------------------------------------------------------------------------
// y holds copies of inputs: exactly lesson 01's values (tolerance 0). dx[i] sums the dy of the
// windows whose first maximum is input i: one when windows do not overlap, at most
// ceil(window/stride)^2 when they do, so it is a float sum of that many terms |dy| < 1:
// course::float_sum_atol(terms) (below 4e-6), as lesson 06's tests allow. Sending a dy to the
// wrong input moves a whole dy (~0.5), far more.
double dx_atol(const host_layers::PoolShape& s) {
  const int per_axis = (s.window + s.stride - 1) / s.stride;
  return course::float_sum_atol(per_axis * per_axis);
}

host_training::LayerPlan plan_of(const Case& c) {
  return layer_test::plan_of(host_training::maxpool_layer(c.window, c.stride), c.channels, c.height, c.width);
}

struct Reference {
  std::vector<double> y, dx;
};

// Lesson 01 in double: forward (with its argmax), then backward by that argmax.
Reference reference(const host_layers::PoolShape& s, const std::vector<float>& x, const std::vector<float>& dy) {
  Reference r{std::vector<double>(s.output_size()), std::vector<double>(s.input_size())};
  std::vector<int> argmax(s.output_size());
  host_layers::maxpool_forward(s, to_double(x).data(), r.y.data(), argmax.data());
  host_layers::maxpool_backward(s, argmax.data(), to_double(dy).data(), r.dx.data());
  return r;
}

// Forward of x_forward, then backward with x_backward (the layer must not need it) and dy; both
// passes' outputs poisoned first. Compares with lesson 01 on x_forward.
void check_pool(const Case& c, const std::vector<float>& x_forward, const std::vector<float>& x_backward,
                const std::vector<float>& dy) {
  const host_training::LayerPlan plan = plan_of(c);
  const size_t in = plan.in_size(), out = plan.out_size();
  mnist_gpu::MaxPoolLayer layer("pool", plan, c.max_batch);
  layer_test::PassLog log;
  layer.set_observer(&log);
  const host_layers::PoolShape s = layer.shape(c.batch);
  REQUIRE(s.output_size() == size_t(c.batch) * out);
  const Reference ref = reference(s, x_forward, dy);
  const course::DeviceBuffer<float> d_x = layer_test::upload_batch(x_forward, in, c.max_batch);
  const course::DeviceBuffer<float> d_x_backward = layer_test::upload_batch(x_backward, in, c.max_batch);
  const course::DeviceBuffer<float> d_dy = layer_test::upload_batch(dy, out, c.max_batch);

  layer_test::poison(layer.output(), size_t(c.max_batch) * out);
  layer.forward(d_x.data(), c.batch);
  const std::vector<float> y = layer_test::download_batch(layer.output(), out, c.batch, c.max_batch, "output()");
  REQUIRE_TENSOR_CLOSE(y, ref.y, course::test::output_shape(s), 0.0, 0.0);  // copies: exact

  layer_test::poison(layer.input_grad(), size_t(c.max_batch) * in);
  layer.backward(d_x_backward.data(), d_dy.data(), c.batch);
  const std::vector<float> dx = layer_test::download_batch(layer.input_grad(), in, c.batch, c.max_batch,
                                                           "input_grad()");
  REQUIRE_TENSOR_CLOSE(dx, ref.dx, course::test::input_shape(s), dx_atol(s), 0.0);  // see dx_atol
  REQUIRE(log.passes == std::vector<std::string>{"pool forward", "pool backward"});
}

}  // namespace

TEST_CASE("max-pool layer: forward and backward equal lesson 01's maxpool in double", "[08.1]") {
  uint64_t seed = 8501;
  for (const Case& c : kCases) {
    seed += 10;
    INFO(c.name);
    COURSE_INPUT_SEED(seed);
    const host_training::LayerPlan plan = plan_of(c);
    const std::vector<float> x = random_vector(size_t(c.batch) * plan.in_size(), seed);
    const std::vector<float> dy = random_vector(size_t(c.batch) * plan.out_size(), seed + 1);
    check_pool(c, x, x, dy);
  }
}

TEST_CASE("max-pool layer: each dy goes to the FIRST maximum of its window (ties)", "[08.1]") {
  // Inputs from {0, 0.5, 1}: most windows hold their maximum twice or more; then inputs all
  // equal: every window is one big tie and its dy goes to its top-left input. Lesson 01's rule:
  // the first maximum in row-by-row, left-to-right order.
  uint64_t seed = 8551;
  for (const Case& c : kCases) {
    seed += 10;
    INFO(c.name);
    COURSE_INPUT_SEED(seed);
    const host_training::LayerPlan plan = plan_of(c);
    const size_t count = size_t(c.batch) * plan.in_size();
    std::vector<float> x(count);
    course::Rng rng(seed, 9);
    for (float& v : x) v = 0.5f * float(rng.uniform_int(3));
    const std::vector<float> dy = random_vector(size_t(c.batch) * plan.out_size(), seed + 1);
    {
      INFO("inputs from {0, 0.5, 1}");
      check_pool(c, x, x, dy);
    }
    {
      INFO("all inputs equal");
      check_pool(c, std::vector<float>(count, 0.25f), std::vector<float>(count, 0.25f), dy);
    }
  }
}

TEST_CASE("max-pool layer: backward routes dy by the argmax its forward stored, not by the x it gets", "[08.1]") {
  // Lesson 06's argmax variant: backward needs no x. It gets x2 = -x1 here, whose maxima are
  // elsewhere (where x1's minima were); the gradient must still follow the forward pass of x1.
  uint64_t seed = 8601;
  for (const Case& c : kCases) {
    seed += 10;
    INFO(c.name);
    COURSE_INPUT_SEED(seed);
    const host_training::LayerPlan plan = plan_of(c);
    const std::vector<float> x1 = random_vector(size_t(c.batch) * plan.in_size(), seed);
    std::vector<float> x2(x1);
    for (float& v : x2) v = -v;
    const std::vector<float> dy = random_vector(size_t(c.batch) * plan.out_size(), seed + 1);
    check_pool(c, x1, x2, dy);
  }
}

TEST_CASE("max-pool layer: a batch outside 1..max_batch throws before any work, in both passes", "[08.1]") {
  const Case& c = kCases[0];
  const host_training::LayerPlan plan = plan_of(c);
  mnist_gpu::MaxPoolLayer layer("pool", plan, c.max_batch);
  const course::DeviceBuffer<float> d_x = layer_test::upload_batch({}, plan.in_size(), c.max_batch + 1);
  layer_test::poison(layer.output(), size_t(c.max_batch) * plan.out_size());
  layer_test::poison(layer.input_grad(), size_t(c.max_batch) * plan.in_size());
  for (int batch : {0, -1, c.max_batch + 1}) {
    CAPTURE(batch);
    layer_test::require_batch_rejected([&] { layer.forward(d_x.data(), batch); }, c.max_batch, "forward");
    layer_test::require_batch_rejected([&] { layer.backward(d_x.data(), d_x.data(), batch); }, c.max_batch,
                                       "backward");
  }
  layer_test::download_batch(layer.output(), plan.out_size(), 0, c.max_batch, "output()");  // nothing written
  layer_test::download_batch(layer.input_grad(), plan.in_size(), 0, c.max_batch, "input_grad()");
}
