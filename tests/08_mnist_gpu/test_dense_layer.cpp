// Lesson 08, step 08.1: DenseLayer::forward and ::backward (the layer object train_mnist uses, on
// device buffers) against lesson 01's dense_forward / dense_backward in double. See
// layer_test_support.hpp for what every layer test does (NaN everywhere a pass writes, rows past
// the batch).
#include <cstdint>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "dense_layer.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"

using course::test::random_vector;
using course::test::to_double;

namespace {

struct Case {
  const char* name;
  int in_c, height, width, out;  // the input is the NCHW output of a layer before: in = C*H*W
  int max_batch, batch;
};

const Case kCases[] = {
    {"a 3 x 5 x 7 feature map (105 inputs) -> 10; batch 3 of 4", 3, 5, 7, 10, 4, 3},
    {"17 -> 33; batch 1 of 1", 1, 1, 17, 33, 1, 1},
    {"model A's fc1 input, 64 x 7 x 7 = 3136 -> 13; batch 9 of 9", 64, 7, 7, 13, 9, 9},
    {"1 -> 1; batch 2 of 5", 1, 1, 1, 1, 5, 2},
};

// ---- tolerances, as lesson 04 tests the same functions ------------------------------------------
// Every result is a float sum of `terms` values of size <= 1 (x, W, bias and dy are all in
// [-1, 1)), compared with the same sum in double: course::float_sum_atol_rtol(terms), half of
// 8 FLT_EPSILON terms as the absolute and half as the relative part (the GEMMs' blocked and
// split sums may give results larger than one term). A wrong index or a lost row is off by a
// whole term (~0.3), far more. The reduction lengths:
//   y: in products + the bias     dx: out products     dW: batch products     dbias: batch values
void require_close(const char* what, const std::vector<float>& got, const std::vector<double>& ref,
                   const course::Shape& shape, int terms) {
  const course::Tolerance t = course::float_sum_atol_rtol(terms < 1 ? 1 : terms);
  REQUIRE_NAMED_CLOSE(what, got, ref, shape, t.atol, t.rtol);
}

host_training::LayerPlan plan_of(const Case& c) {
  return layer_test::plan_of(host_training::dense_layer(c.out), c.in_c, c.height, c.width);
}

void check_dense(const Case& c, uint64_t seed) {
  INFO(c.name);
  COURSE_INPUT_SEED(seed);
  const host_training::LayerPlan plan = plan_of(c);
  const int in = int(plan.in_size()), out = c.out, batch = c.batch;
  REQUIRE(plan.out_size() == size_t(out));
  const std::vector<float> W = random_vector(size_t(out) * in, seed);
  const std::vector<float> bias = random_vector(size_t(out), seed + 1);
  const std::vector<float> x = random_vector(size_t(batch) * in, seed + 2);
  const std::vector<float> dy = random_vector(size_t(batch) * out, seed + 3);

  std::vector<double> y_ref(size_t(batch) * out), dx_ref(size_t(batch) * in), dW_ref(W.size()), db_ref(bias.size());
  host_layers::dense_forward(to_double(x).data(), to_double(W).data(), to_double(bias).data(), y_ref.data(), batch, in,
                             out);
  host_layers::dense_backward(to_double(x).data(), to_double(W).data(), to_double(dy).data(), dx_ref.data(),
                              dW_ref.data(), db_ref.data(), batch, in, out);

  layer_test::DeviceParam d_W(W), d_bias(bias);
  mnist_gpu::DenseLayer layer("fc", plan, c.max_batch, d_W.view(), d_bias.view());
  layer_test::PassLog log;
  layer.set_observer(&log);
  const course::DeviceBuffer<float> d_x = layer_test::upload_batch(x, size_t(in), c.max_batch);
  const course::DeviceBuffer<float> d_dy = layer_test::upload_batch(dy, size_t(out), c.max_batch);
  const course::Shape y_shape = course::test::matrix("b", batch, "o", out);
  const course::Shape x_shape = course::test::matrix("b", batch, "i", in);
  const course::Shape w_shape = course::test::matrix("o", out, "i", in);
  const course::Shape b_shape = {{"o", size_t(out)}};

  layer_test::poison(layer.output(), size_t(c.max_batch) * out);
  layer.forward(d_x.data(), batch);
  const std::vector<float> y = layer_test::download_batch(layer.output(), size_t(out), batch, c.max_batch, "output()");
  require_close("y", y, y_ref, y_shape, in + 1);

  // Twice: the second backward finds the first one's gradients in place of the NaN, and must
  // still give the same values (it overwrites, it does not add).
  for (int call = 1; call <= 2; ++call) {
    CAPTURE(call);
    if (call == 1) {
      layer_test::poison(layer.input_grad(), size_t(c.max_batch) * in);
      d_W.grad.poison();
      d_bias.grad.poison();
    }
    layer.backward(d_x.data(), d_dy.data(), batch);
    const std::vector<float> dx = layer_test::download_batch(layer.input_grad(), size_t(in), batch, c.max_batch,
                                                             "input_grad()");
    require_close("dx", dx, dx_ref, x_shape, out);
    require_close("dW (weight_.grad)", d_W.downloaded_grad(), dW_ref, w_shape, batch);
    require_close("dbias (bias_.grad)", d_bias.downloaded_grad(), db_ref, b_shape, batch);
  }
  REQUIRE(log.passes == std::vector<std::string>{"fc forward", "fc backward", "fc backward"});
}

}  // namespace

TEST_CASE("dense layer: forward and backward equal lesson 01's dense in double", "[08.1]") {
  uint64_t seed = 8701;
  for (const Case& c : kCases) check_dense(c, seed += 10);
}

TEST_CASE("dense layer: a batch outside 1..max_batch throws before any work, in both passes", "[08.1]") {
  const Case& c = kCases[0];
  const host_training::LayerPlan plan = plan_of(c);
  const std::vector<float> W = random_vector(size_t(c.out) * plan.in_size(), 8801);
  const std::vector<float> bias = random_vector(size_t(c.out), 8802);
  layer_test::DeviceParam d_W(W), d_bias(bias);
  mnist_gpu::DenseLayer layer("fc", plan, c.max_batch, d_W.view(), d_bias.view());
  const course::DeviceBuffer<float> d_x = layer_test::upload_batch({}, plan.in_size(), c.max_batch + 1);
  const course::DeviceBuffer<float> d_dy = layer_test::upload_batch({}, plan.out_size(), c.max_batch + 1);
  layer_test::poison(layer.output(), size_t(c.max_batch) * plan.out_size());
  layer_test::poison(layer.input_grad(), size_t(c.max_batch) * plan.in_size());
  for (int batch : {0, -1, c.max_batch + 1}) {
    CAPTURE(batch);
    layer_test::require_batch_rejected([&] { layer.forward(d_x.data(), batch); }, c.max_batch, "forward");
    layer_test::require_batch_rejected([&] { layer.backward(d_x.data(), d_dy.data(), batch); }, c.max_batch,
                                       "backward");
  }
  layer_test::download_batch(layer.output(), plan.out_size(), 0, c.max_batch, "output()");  // nothing written
  layer_test::download_batch(layer.input_grad(), plan.in_size(), 0, c.max_batch, "input_grad()");
  layer_test::download_batch(d_W.grad.data(), d_W.size, 0, 1, "weight gradient");
  layer_test::download_batch(d_bias.grad.data(), d_bias.size, 0, 1, "bias gradient");
}
