// Given code (not an exercise step): model specs, layer sizes, parameter init, the Optimizer's
// checks and the inference forward pass against a double reference.
#include <cmath>

#include "course_test.hpp"
#include "host_training.hpp"
#include "reference_network.hpp"

using namespace host_training;

TEST_CASE("small_cnn and model_a have the layer sizes of the course", "[model]") {
  const std::vector<LayerPlan> small = plan_layers(small_cnn());
  REQUIRE(small.size() == 6);
  CHECK(small[0].out_size() == 10 * 28 * 28);  // conv 3x3 pad 1 keeps 28 x 28
  CHECK(small[2].out_size() == 10 * 14 * 14);  // max-pool 2 halves it
  CHECK(small[3].in_size() == 1960);
  CHECK(small[3].out_size() == 100);
  CHECK(small[5].out_size() == 10);
  const std::vector<LayerPlan> a = plan_layers(model_a());
  REQUIRE(a.size() == 9);
  CHECK(a[6].in_size() == 64 * 7 * 7);
  CHECK(a[6].out_size() == 512);
  CHECK(model_by_name("small").layers.size() == 6);
  CHECK(model_by_name("a").layers.size() == 9);
  CHECK_THROWS_AS(model_by_name("b"), course::Error);
}

TEST_CASE("init_parameters: names, PyTorch shapes, Kaiming-uniform bounds, reproducible", "[model]") {
  const std::vector<Parameter> p = init_parameters(model_a(), 3);
  REQUIRE(p.size() == 8);
  const char* names[8] = {"conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias",
                          "fc1.weight",   "fc1.bias",   "fc2.weight",   "fc2.bias"};
  const std::vector<std::vector<int>> shapes = {{32, 1, 5, 5}, {32}, {64, 32, 5, 5}, {64}, {512, 3136}, {512},
                                                {10, 512},     {10}};
  const int fan_in[8] = {25, 0, 800, 0, 3136, 0, 512, 0};
  for (size_t k = 0; k < 8; ++k) {
    INFO(names[k]);
    CHECK(p[k].name == names[k]);
    CHECK(p[k].shape == shapes[k]);
    REQUIRE(p[k].value.size() == course::element_count(shapes[k]));
    CHECK(p[k].grad.size() == p[k].value.size());
    if (fan_in[k] == 0) {
      for (float v : p[k].value) REQUIRE(v == 0.0f);
      continue;
    }
    const double bound = std::sqrt(6.0 / fan_in[k]);
    double lo = 0, hi = 0;
    for (float v : p[k].value) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
    CHECK(lo >= -bound);
    CHECK(hi < bound);
    CHECK(lo < -0.9 * bound);  // the whole range is used
    CHECK(hi > 0.9 * bound);
  }
  // The order of draws is part of the contract (lesson 08 makes the same weights).
  course::Rng rng(3, 0);
  const float b1 = float(std::sqrt(6.0 / 25));
  CHECK(p[0].value[0] == rng.uniform(-b1, b1));
  CHECK(p[0].value[1] == rng.uniform(-b1, b1));
  CHECK(init_parameters(model_a(), 3)[4].value == p[4].value);
  CHECK(init_parameters(model_a(), 4)[4].value != p[4].value);
}

TEST_CASE("HostNetwork and Optimizer reject what does not fit", "[model]") {
  std::vector<Parameter> p = init_parameters(small_cnn(), 1);
  CHECK_THROWS_AS(HostNetwork(model_a(), p), course::Error);
  p[2].shape = {100, 1961};
  CHECK_THROWS_AS(HostNetwork(small_cnn(), p), course::Error);
  OptimizerConfig bad;
  bad.kind = OptimizerKind::adadelta;  // no update rule given for it
  CHECK_THROWS_AS(Optimizer(bad, p), course::Error);
  const ModelSpec with_sigmoid = model_from_text("conv5x5x6,sigmoid,pool2,dense10");  // not lesson 02's layers
  CHECK_THROWS_WITH(HostNetwork(with_sigmoid, init_parameters(with_sigmoid, 1)),
                    "HostNetwork: layer 2 'sigmoid' is not a layer of this trainer (it runs conv, relu, pool and "
                    "dense); a later lesson's trainer runs it");
  ModelSpec wrong_classes = small_cnn();
  wrong_classes.classes = 7;
  CHECK_THROWS_AS(plan_layers(wrong_classes), course::Error);
}

TEST_CASE("HostNetwork::forward matches a double forward pass", "[model]") {
  const uint64_t seed = 17;
  COURSE_INPUT_SEED(seed);
  ModelSpec spec = small_cnn();
  std::vector<Parameter> params = init_parameters(spec, seed);
  course::Rng rng(seed, 9);
  for (Parameter& q : params)
    if (q.shape.size() == 1) rng.fill_uniform(q.value, -0.1f, 0.1f);
  HostNetwork net(spec, params);
  const int batch = 3;
  const std::vector<float> x = course::test::random_vector(size_t(batch) * 784, seed, 0.0f, 1.0f);
  std::vector<float> logits = course::test::nan_vector(size_t(batch) * 10);
  net.forward(x.data(), batch, logits.data());
  const std::vector<double> ref =
      test02::reference_logits(spec, test02::to_double(params), course::test::to_double(x), batch);
  // Logits sum ~2000 float products of size ~0.1: 1e-5 absolute is ~100 float roundings of that.
  REQUIRE_ALL_CLOSE(logits, ref, 1e-5, 1e-5);
}
