// Lesson 12 (given code, through your 12.1 and 12.2): BeyondHostNetwork, the CPU network that runs
// sigmoid, tanh and dropout besides lesson 02's layers, against a double-precision reference
// (network_reference.hpp) and finite differences of its loss. Also: each training pass draws a
// new dropout mask, evaluation drops nothing, and the named networks of models/ plan as described.
#include <cmath>
#include <string>
#include <vector>

#include "beyond_gpu_layers.hpp"
#include "beyond_host_network.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "network_reference.hpp"
#include "your_steps_check.hpp"

#ifndef COURSE_MODELS_DIR
#error "COURSE_MODELS_DIR: lesson 12's models folder"
#endif

namespace {

using host_training::ModelSpec;

// A small network with every new layer, 2 x 9 x 9 inputs, 5 classes; odd sizes everywhere.
ModelSpec small_mixed() {
  ModelSpec spec = host_training::model_from_text("conv3x3x4p1,tanh,pool2,dropout0.3,dense13,sigmoid,dropout0.5,dense5");
  spec.in_channels = 2, spec.height = 9, spec.width = 9, spec.classes = 5;
  return spec;
}

struct Batch {
  std::vector<float> x;
  std::vector<int> labels;
};

Batch random_batch(const ModelSpec& spec, int batch, uint64_t seed) {
  Batch b;
  b.x = course::test::random_vector(size_t(batch) * spec.in_channels * spec.height * spec.width, seed, -1.f, 1.f);
  course::Rng rng(seed, 7);
  for (int i = 0; i < batch; ++i) b.labels.push_back(rng.uniform_int(spec.classes));
  return b;
}

}  // namespace

// Tolerances: the network computes in float, the reference in double. The loss (~1.6) rounds at
// ~1e-7 relative per layer: 1e-5 relative leaves room. Gradients: the float backward pass against
// central differences (step 1e-6) of the double loss, whose own error is ~1e-9; float rounding of
// sums of up to 4*9*9 terms keeps each entry within ~1e-5 of the tensor's largest, so
// atol = 1e-3 * max|g| + rtol 1e-3 passes the right chain and fails a wrong one (a missing
// scale 1/(1-rate) is 43 % off, a mask from another pass about 100 %).
TEST_CASE("BeyondHostNetwork: loss and every gradient against finite differences in double", "[12-host_network]") {
  const ModelSpec spec = small_mixed();
  const int batch = 3;
  const uint64_t seed = 12;
  const Batch b = random_batch(spec, batch, seed);
  beyond_mnist::BeyondHostNetwork net(spec, host_training::init_parameters(spec, seed), 1, seed);
  const std::vector<std::vector<double>> w0 = test12::to_double(net.parameters());
  const float loss = net.forward_backward(b.x.data(), b.labels.data(), batch);

  const test12::Dropout first_pass{true, seed, 0};
  std::vector<std::vector<double>> w = w0;
  const std::vector<double> xd(b.x.begin(), b.x.end());
  const double ref = test12::reference_loss(spec, w, xd, b.labels, batch, first_pass);
  CHECK(std::isfinite(loss));
  CHECK(std::fabs(loss - ref) <= 1e-5 * std::fabs(ref));

  for (size_t t = 0; t < w.size(); ++t) {
    std::vector<double> numeric(w[t].size());
    for (size_t k = 0; k < w[t].size(); ++k) {
      auto f = [&] { return test12::reference_loss(spec, w, xd, b.labels, batch, first_pass); };  // reads w
      numeric[k] = course::test::numeric_derivative(f, w[t], k);
    }
    double largest = 0;
    for (double g : numeric) largest = std::max(largest, std::fabs(g));
    const std::vector<float>& grad = net.parameters()[t].grad;
    INFO("parameter " << net.parameters()[t].name << ", seed " << seed);
    REQUIRE_ALL_CLOSE(grad, numeric, 1e-3 * largest, 1e-3);
  }
}

TEST_CASE("BeyondHostNetwork: a new dropout mask every training pass; evaluation drops nothing", "[12-host_network]") {
  const ModelSpec spec = small_mixed();
  const int batch = 4;
  const uint64_t seed = 5;
  const Batch b = random_batch(spec, batch, seed + 1);
  beyond_mnist::BeyondHostNetwork net(spec, host_training::init_parameters(spec, seed), 2, seed);
  const std::vector<std::vector<double>> w = test12::to_double(net.parameters());
  const std::vector<double> xd(b.x.begin(), b.x.end());
  for (uint64_t pass = 0; pass < 3; ++pass) {  // no update in between: only the masks change
    const float loss = net.forward_backward(b.x.data(), b.labels.data(), batch);
    const double ref = test12::reference_loss(spec, w, xd, b.labels, batch, {true, seed, pass});
    INFO("training pass " << pass);
    CHECK(std::fabs(loss - ref) <= 1e-5 * std::fabs(ref));
  }
  CHECK(net.training_passes() == 3);
  std::vector<float> logits = course::test::nan_vector(size_t(batch) * spec.classes);
  net.forward(b.x.data(), batch, logits.data());
  REQUIRE_ALL_CLOSE(logits, test12::reference_logits(spec, w, xd, batch, {false, seed, 0}), 1e-5, 1e-5);
}

TEST_CASE("the named networks of models/ plan as their files say", "[12-host_network]") {
  struct Named {
    const char* name;
    int channels, side;
    size_t parameters;
    const char* shapes;
  };
  for (const Named& n :
       {Named{"mlp", 1, 28, 669706, "1x28x28 -dense512-> 512 -relu-> -dropout0.2-> -dense512-> 512 -relu-> -dropout0.2-> "
                                    "-dense10-> 10"},
        Named{"lenet5", 1, 28, 44426, "1x28x28 -conv5x5x6-> 6x24x24 -sigmoid-> -pool2-> 6x12x12 -conv5x5x16-> 16x8x8 "
                                      "-sigmoid-> -pool2-> 16x4x4 -conv4x4x120-> 120 -sigmoid-> -dense84-> 84 "
                                      "-sigmoid-> -dense10-> 10"},
        Named{"lenet5", 3, 32, 74966, nullptr},
        Named{"lenet5_classic", 1, 28, 61706, "1x28x28 -conv5x5x6p2-> 6x28x28 -sigmoid-> -pool2-> 6x14x14 -conv5x5x16-> "
                                              "16x10x10 -sigmoid-> -pool2-> 16x5x5 -conv5x5x120-> 120 -sigmoid-> "
                                              "-dense84-> 84 -sigmoid-> -dense10-> 10"},
        Named{"mnist_cnn", 1, 28, 1199882, nullptr},
        Named{"colour_cnn", 3, 32, 1606730, nullptr}}) {
    ModelSpec spec = host_training::model_by_name(std::string("@") + COURSE_MODELS_DIR + "/" + n.name + ".txt");
    spec.in_channels = n.channels, spec.height = spec.width = n.side;
    size_t count = 0;
    for (const auto& p : host_training::init_parameters(spec, 1)) count += p.value.size();
    INFO(n.name << " on " << n.channels << "x" << n.side << "x" << n.side);
    CHECK(count == n.parameters);
    if (n.shapes) CHECK(host_training::plan_summary(spec) == n.shapes);
  }
}

TEST_CASE("stream_problem names the first layer that keeps a network out of CUDA graphs", "[12-host_network]") {
  auto problem = [](const char* layers, int channels = 1, int side = 28) {
    ModelSpec spec = host_training::model_from_text(layers);
    spec.in_channels = channels, spec.height = spec.width = side;
    return beyond_mnist::stream_problem(spec);
  };
  for (const char* name : {"mlp", "lenet5", "lenet5_classic", "mnist_cnn", "colour_cnn"}) {
    INFO(name);
    ModelSpec spec = host_training::model_by_name(std::string("@") + COURSE_MODELS_DIR + "/" + name + ".txt");
    spec.in_channels = std::string(name) == "colour_cnn" ? 3 : 1;
    spec.height = spec.width = spec.in_channels == 3 ? 32 : 28;
    CHECK(beyond_mnist::stream_problem(spec).empty());
  }
  // Lesson 09's pool folds a ReLU in: right after relu or sigmoid (also past a dropout), wrong after tanh.
  CHECK(problem("conv3x3x8,relu,dropout0.5,pool2,dense10").empty());
  CHECK(problem("conv3x3x8,tanh,pool2,dense10") ==
        "layer 3 'pool2' runs on lesson 08's kernels (its input can be negative: lesson 09's pool folds a ReLU in)");
  CHECK(problem("pool2,dense10") ==
        "layer 1 'pool2' runs on lesson 08's kernels (its input can be negative: lesson 09's pool folds a ReLU in)");
  CHECK(problem("conv3x3x8,relu,pool3s2,dense10") == "layer 3 'pool3s2' runs on lesson 08's kernels (its windows overlap)");
  CHECK(problem("conv3x3x8,relu,conv3x3x8s2,dense10") ==
        "layer 3 'conv3x3x8s2' runs on lesson 08's kernels (a strided convolution's input gradient)");
  CHECK(problem("conv3x3x8s2,relu,dense10").empty());  // the first layer's input gradient is not needed
}

TEST_CASE("train_beyond's look at your steps passes finished host functions", "[12-host_network]") {
  CHECK_NOTHROW(beyond_mnist::check_your_steps(false));
}
