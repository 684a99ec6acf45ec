// Lesson 09, step 09.1: the cost of each pass, against counts worked out by hand.
#include <vector>

#include "course_test.hpp"
#include "fast_training.hpp"

using fast_training::PassCost;

namespace {

host_training::LayerPlan plan_of(host_training::LayerSpec spec, int in_c, int in_h, int in_w, int out_c, int out_h,
                                 int out_w) {
  host_training::LayerPlan p;
  p.spec = spec;
  p.in_c = in_c, p.in_h = in_h, p.in_w = in_w, p.out_c = out_c, p.out_h = out_h, p.out_w = out_w;
  return p;
}

void require_cost(const PassCost& got, double flops, double bytes) {
  INFO("flops " << got.flops << " (expected " << flops << "), bytes " << got.bytes << " (expected " << bytes << ")");
  REQUIRE(got.flops == flops);
  REQUIRE(got.bytes == bytes);
}

}  // namespace

TEST_CASE("pass costs of a conv layer: forward, backward with and without dx", "[09.1]") {
  // 3 images, 2 -> 5 channels, 3x3 kernel, pad 1 on 7x6: 5 x 7 x 6 outputs per image.
  const auto p = plan_of(host_training::conv_layer(5, 3, 1), 2, 7, 6, 5, 7, 6);
  const double x = 3 * 2 * 7 * 6, y = 3 * 5 * 7 * 6, W = 5 * 2 * 3 * 3, b = 5;
  const double mads = y * 2 * 3 * 3;  // every output: 2 channels x 3 x 3 products
  require_cost(fast_training::layer_pass_cost(p, 3, false), 2 * mads, 4 * (x + W + b + y));
  require_cost(fast_training::layer_pass_cost(p, 3, true), 4 * mads, 4 * (x + y + W + b + W + x));
  require_cost(fast_training::layer_pass_cost(p, 3, true, false), 2 * mads, 4 * (x + y + W + b));
}

TEST_CASE("pass costs of a dense layer, ReLU and max-pool", "[09.1]") {
  // dense 3x4x2 = 24 inputs -> 7, batch 5
  const auto d = plan_of(host_training::dense_layer(7), 3, 4, 2, 7, 1, 1);
  require_cost(fast_training::layer_pass_cost(d, 5, false), 2.0 * 5 * 24 * 7, 4.0 * (5 * 24 + 7 * 24 + 7 + 5 * 7));
  require_cost(fast_training::layer_pass_cost(d, 5, true), 4.0 * 5 * 24 * 7,
               4.0 * (5 * 24 + 5 * 7 + 7 * 24 + 7 + 7 * 24 + 5 * 24));
  // ReLU over 2 x (3 x 5 x 5): bytes only
  const auto r = plan_of(host_training::relu_layer(), 3, 5, 5, 3, 5, 5);
  require_cost(fast_training::layer_pass_cost(r, 2, false), 0, 4.0 * 2 * 150);
  require_cost(fast_training::layer_pass_cost(r, 2, true), 0, 4.0 * 3 * 150);
  require_cost(fast_training::layer_pass_cost(r, 2, true, false), 0, 0);
  // max-pool 2x2 on 3 x 5 x 5 -> 3 x 2 x 2, batch 2: forward writes y and the argmax
  const auto m = plan_of(host_training::maxpool_layer(2, 2), 3, 5, 5, 3, 2, 2);
  require_cost(fast_training::layer_pass_cost(m, 2, false), 0, 4.0 * (150 + 2 * 24));
  require_cost(fast_training::layer_pass_cost(m, 2, true), 0, 4.0 * (2 * 24 + 150));
}

TEST_CASE("pass costs of the loss; a batch below 1 throws", "[09.1]") {
  require_cost(fast_training::loss_pass_cost(6, 10, false), 0, 4.0 * (60 + 6 + 60 + 6));
  require_cost(fast_training::loss_pass_cost(6, 10, true), 0, 4.0 * (60 + 6 + 60));
  const auto d = plan_of(host_training::dense_layer(7), 3, 4, 2, 7, 1, 1);
  REQUIRE_THROWS_AS(fast_training::layer_pass_cost(d, 0, false), course::Error);
  REQUIRE_THROWS_AS(fast_training::loss_pass_cost(0, 10, true), course::Error);
  REQUIRE_THROWS_AS(fast_training::loss_pass_cost(4, 0, true), course::Error);
}

TEST_CASE("model A at batch 128: the flops of a step, conv2 most of them", "[09.1]") {
  const auto plans = host_training::plan_layers(host_training::model_by_name("a"));
  double step = 0, conv2 = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const double f = fast_training::layer_pass_cost(plans[i], 128, false).flops +
                     fast_training::layer_pass_cost(plans[i], 128, true, i != 0).flops;
    step += f;
    if (i == 3) conv2 = f;  // conv1, relu, pool, conv2, ...
  }
  // conv2: 128 x 64 x 14 x 14 outputs of 32 x 5 x 5 products, three passes of 2 flops each.
  REQUIRE(conv2 == 3 * 2.0 * 128 * 64 * 14 * 14 * 32 * 25);
  // conv1 forward and dW (no dx): 2 x 2 x 128 x 32 x 28 x 28 x 25; fc1 and fc2: 3 x 2 x 128 x in x out.
  const double conv1 = 2 * 2.0 * 128 * 32 * 28 * 28 * 25;
  const double dense = 3 * 2.0 * 128 * (3136.0 * 512 + 512.0 * 10);
  REQUIRE(step == conv1 + conv2 + dense);
}
