// Lesson 08, step 08.1: ReluLayer::forward and ::backward (the layer object train_mnist uses, on
// device buffers) against lesson 01's relu_forward / relu_backward in double. See
// layer_test_support.hpp for what every layer test does (NaN everywhere a pass writes, rows past
// the batch).
//
// Tolerance 0 everywhere in this file: ReLU only compares and copies, no arithmetic, so the GPU
// gives the very values lesson 01 gives (the float inputs are exact in double).
#include <cstdint>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "relu_layer.hpp"

using course::test::random_vector;
using course::test::to_double;

namespace {

struct Case {
  const char* name;
  int channels, height, width;
  int max_batch, batch;
};

const Case kCases[] = {
    {"3 x 5 x 7; batch 3 of 4", 3, 5, 7, 4, 3},
    {"1 x 1 x 17; batch 1 of 1", 1, 1, 17, 1, 1},
    {"1 x 15 x 13; batch 1 of 6", 1, 15, 13, 6, 1},
    // 11 x 25,088 = 275,968 values: more than the 262,144 threads lesson 03's launcher starts.
    {"model A's relu1, 32 x 28 x 28; batch 11 of 12 (more values than one grid)", 32, 28, 28, 12, 11},
};

// Uniform in [-1, 1), with exact zeros of both signs at every 7th and 11th value: the gradient
// at x == 0 is 0 (lesson 01's rule).
std::vector<float> relu_input(size_t n, uint64_t seed) {
  std::vector<float> x = random_vector(n, seed);
  for (size_t i = 0; i < n; i += 7) x[i] = 0.0f;
  for (size_t i = 3; i < n; i += 11) x[i] = -0.0f;
  return x;
}

host_training::LayerPlan plan_of(const Case& c) {
  return layer_test::plan_of(host_training::relu_layer(), c.channels, c.height, c.width);
}

course::Shape shape_of(const Case& c, int batch) {
  return {{"n", size_t(batch)}, {"c", size_t(c.channels)}, {"h", size_t(c.height)}, {"w", size_t(c.width)}};
}

}  // namespace

TEST_CASE("relu layer: forward and backward equal lesson 01's relu in double", "[08.1]") {
  uint64_t seed = 8401;
  for (const Case& c : kCases) {
    seed += 10;
    INFO(c.name);
    COURSE_INPUT_SEED(seed);
    const host_training::LayerPlan plan = plan_of(c);
    const size_t n = plan.in_size();
    REQUIRE(plan.out_size() == n);
    const std::vector<float> x = relu_input(size_t(c.batch) * n, seed);
    const std::vector<float> dy = random_vector(size_t(c.batch) * n, seed + 1);
    std::vector<double> y_ref(x.size()), dx_ref(x.size());
    host_layers::relu_forward(to_double(x).data(), y_ref.data(), x.size());
    host_layers::relu_backward(to_double(x).data(), to_double(dy).data(), dx_ref.data(), x.size());

    mnist_gpu::ReluLayer layer("relu", plan, c.max_batch);
    layer_test::PassLog log;
    layer.set_observer(&log);
    const course::DeviceBuffer<float> d_x = layer_test::upload_batch(x, n, c.max_batch);
    const course::DeviceBuffer<float> d_dy = layer_test::upload_batch(dy, n, c.max_batch);

    layer_test::poison(layer.output(), size_t(c.max_batch) * n);
    layer.forward(d_x.data(), c.batch);
    const std::vector<float> y = layer_test::download_batch(layer.output(), n, c.batch, c.max_batch, "output()");
    REQUIRE_TENSOR_CLOSE(y, y_ref, shape_of(c, c.batch), 0.0, 0.0);

    layer_test::poison(layer.input_grad(), size_t(c.max_batch) * n);
    layer.backward(d_x.data(), d_dy.data(), c.batch);
    const std::vector<float> dx = layer_test::download_batch(layer.input_grad(), n, c.batch, c.max_batch,
                                                             "input_grad()");
    REQUIRE_TENSOR_CLOSE(dx, dx_ref, shape_of(c, c.batch), 0.0, 0.0);
    REQUIRE(log.passes == std::vector<std::string>{"relu forward", "relu backward"});
  }
}

TEST_CASE("relu layer: backward decides by the INPUT x it is given, not by output() or dy", "[08.1]") {
  // The network hands each layer's backward that layer's input. Here backward gets x2 = -x1 after
  // a forward of x1 (so output() says the opposite of x2 wherever x1 != 0), and then, on a new
  // layer, with no forward at all (output() still NaN). dy is drawn independently of x.
  const Case& c = kCases[0];
  const uint64_t seed = 8451;
  COURSE_INPUT_SEED(seed);
  const host_training::LayerPlan plan = plan_of(c);
  const size_t n = plan.in_size(), count = size_t(c.batch) * n;
  const std::vector<float> x1 = relu_input(count, seed);
  std::vector<float> x2(x1);
  for (float& v : x2) v = -v;
  const std::vector<float> dy = random_vector(count, seed + 1);
  std::vector<double> dx_ref(count);
  host_layers::relu_backward(to_double(x2).data(), to_double(dy).data(), dx_ref.data(), count);
  const course::DeviceBuffer<float> d_x1 = layer_test::upload_batch(x1, n, c.max_batch);
  const course::DeviceBuffer<float> d_x2 = layer_test::upload_batch(x2, n, c.max_batch);
  const course::DeviceBuffer<float> d_dy = layer_test::upload_batch(dy, n, c.max_batch);
  {
    INFO("forward(x1), then backward(x2 = -x1, dy)");
    mnist_gpu::ReluLayer layer("relu", plan, c.max_batch);
    layer.forward(d_x1.data(), c.batch);
    layer_test::poison(layer.input_grad(), size_t(c.max_batch) * n);
    layer.backward(d_x2.data(), d_dy.data(), c.batch);
    const std::vector<float> dx = layer_test::download_batch(layer.input_grad(), n, c.batch, c.max_batch,
                                                             "input_grad()");
    REQUIRE_TENSOR_CLOSE(dx, dx_ref, shape_of(c, c.batch), 0.0, 0.0);
  }
  {
    INFO("backward(x2, dy) on a new layer, with no forward before it");
    mnist_gpu::ReluLayer layer("relu", plan, c.max_batch);
    layer_test::poison(layer.output(), size_t(c.max_batch) * n);
    layer_test::poison(layer.input_grad(), size_t(c.max_batch) * n);
    layer.backward(d_x2.data(), d_dy.data(), c.batch);
    const std::vector<float> dx = layer_test::download_batch(layer.input_grad(), n, c.batch, c.max_batch,
                                                             "input_grad()");
    REQUIRE_TENSOR_CLOSE(dx, dx_ref, shape_of(c, c.batch), 0.0, 0.0);
  }
}

TEST_CASE("relu layer: a batch outside 1..max_batch throws before any work, in both passes", "[08.1]") {
  const Case& c = kCases[0];
  const host_training::LayerPlan plan = plan_of(c);
  const size_t n = plan.in_size();
  mnist_gpu::ReluLayer layer("relu", plan, c.max_batch);
  const course::DeviceBuffer<float> d_x = layer_test::upload_batch({}, n, c.max_batch + 1);
  layer_test::poison(layer.output(), size_t(c.max_batch) * n);
  layer_test::poison(layer.input_grad(), size_t(c.max_batch) * n);
  for (int batch : {0, -1, c.max_batch + 1}) {
    CAPTURE(batch);
    layer_test::require_batch_rejected([&] { layer.forward(d_x.data(), batch); }, c.max_batch, "forward");
    layer_test::require_batch_rejected([&] { layer.backward(d_x.data(), d_x.data(), batch); }, c.max_batch,
                                       "backward");
  }
  layer_test::download_batch(layer.output(), n, 0, c.max_batch, "output()");  // nothing written
  layer_test::download_batch(layer.input_grad(), n, 0, c.max_batch, "input_grad()");
}
