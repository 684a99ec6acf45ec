// Lesson 12, step 12.4 on the CPU: which kernels run each layer of a list. Every expected choice
// below is worked out by hand from the rules of the README (12.4), for networks that reach every
// rule: a pool whose input can or cannot be negative, a relu with and without a pool after it,
// strided and whole-input convolutions, overlapping windows, and the lesson 08 network.
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "layer_kernels.hpp"

using beyond_mnist::GpuLayers;
using beyond_mnist::LayerKernels;

namespace {

constexpr LayerKernels L08 = LayerKernels::lesson08, TILED = LayerKernels::tiled_conv,
                       IMPLICIT = LayerKernels::implicit_conv, DENSE = LayerKernels::dense,
                       RELU_POOL = LayerKernels::relu_pool, FOLDED = LayerKernels::folded_relu,
                       ACTIVATION = LayerKernels::activation, DROPOUT = LayerKernels::dropout;

// What one layer should get: its kernels and, for lesson 08's, the reason.
struct Want {
  LayerKernels kernels;
  const char* why = nullptr;
};

std::vector<host_training::LayerPlan> plans_of(const std::string& model, int channels, int side, int classes = 10) {
  host_training::ModelSpec spec = host_training::model_from_text(model);
  spec.in_channels = channels, spec.height = spec.width = side, spec.classes = classes;
  return host_training::plan_layers(spec);
}

void expect_choices(const std::string& model, int channels, int side, GpuLayers layers, const std::vector<Want>& want) {
  const std::vector<host_training::LayerPlan> plans = plans_of(model, channels, side);
  REQUIRE(plans.size() == want.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    INFO("exercises/layer_kernels.cpp: choose_kernels for layer " << i + 1 << " '"
                                                                  << host_training::layer_text(plans[i].spec) << "' of "
                                                                  << model << " (" << channels << "x" << side << "x"
                                                                  << side << ", "
                                                                  << (layers == GpuLayers::lesson09 ? "lesson09" : "lesson08")
                                                                  << " layers)");
    std::string why = "(left as it was)";
    const LayerKernels got = beyond_mnist::choose_kernels(plans, i, layers, &why);
    INFO("got " << beyond_mnist::kernels_name(got) << ", want " << beyond_mnist::kernels_name(want[i].kernels));
    CHECK(got == want[i].kernels);
    INFO("why: '" << why << "'");
    CHECK(why == std::string(want[i].why ? want[i].why : "(left as it was)"));
    // Without a place for the reason the choice is the same.
    CHECK(beyond_mnist::choose_kernels(plans, i, layers) == want[i].kernels);
  }
}

}  // namespace

TEST_CASE("choose_kernels: LeNet-5 with sigmoids (your activations; pools after sigmoids; a conv that is dense)",
          "[12.4]") {
  // conv1 and conv2 have 1 and 6 input channels: too few for the tiled kernel, implicit GEMMs.
  // conv3 (16x4x4 -> 120x1x1) covers its whole input: a dense product.
  expect_choices("conv5x5x6,sigmoid,pool2,conv5x5x16,sigmoid,pool2,conv4x4x120,sigmoid,dense84,sigmoid,dense10", 1,
                 28, GpuLayers::lesson09,
                 {{IMPLICIT}, {ACTIVATION}, {RELU_POOL}, {IMPLICIT}, {ACTIVATION}, {RELU_POOL}, {DENSE}, {ACTIVATION},
                  {DENSE}, {ACTIVATION}, {DENSE}});
}

TEST_CASE("choose_kernels: Keras's mnist_cnn (a tiled conv, a relu folded into the pool, dropouts)", "[12.4]") {
  // conv2 (32 input channels, 3x3, stride 1, 24x24 out) runs on the tiled kernels. The relu before
  // the pool is folded into it; the relu after dense128 has a dropout after it, not a pool.
  expect_choices("conv3x3x32,relu,conv3x3x64,relu,pool2,dropout0.25,dense128,relu,dropout0.5,dense10", 1, 28,
                 GpuLayers::lesson09,
                 {{IMPLICIT}, {RELU_POOL}, {TILED}, {FOLDED}, {RELU_POOL}, {DROPOUT}, {DENSE}, {RELU_POOL}, {DROPOUT},
                  {DENSE}});
}

TEST_CASE("choose_kernels: a pool whose input can be negative stays lesson 08's", "[12.4]") {
  const char* negative = beyond_mnist::kPoolInputCanBeNegative;
  // The network's input (pixels may be shifted below 0), a conv's output, a tanh's output.
  expect_choices("pool2,dense10", 1, 28, GpuLayers::lesson09, {{L08, negative}, {DENSE}});
  expect_choices("conv3x3x8,pool2,dense10", 3, 17, GpuLayers::lesson09, {{IMPLICIT}, {L08, negative}, {DENSE}});
  expect_choices("conv3x3x8,tanh,pool2,dense10", 3, 17, GpuLayers::lesson09,
                 {{IMPLICIT}, {ACTIVATION}, {L08, negative}, {DENSE}});
  // A dropout keeps the sign: a relu's output through a dropout and a pool is still never negative.
  expect_choices("conv3x3x8,relu,dropout0.5,pool2,pool2,dense10", 3, 17, GpuLayers::lesson09,
                 {{IMPLICIT}, {RELU_POOL}, {DROPOUT}, {RELU_POOL}, {RELU_POOL}, {DENSE}});
  // A sigmoid's output is never negative either; a relu before a dense is no pool's business.
  expect_choices("dense30,sigmoid,dropout0.2,relu,dense10", 1, 9, GpuLayers::lesson09,
                 {{DENSE}, {ACTIVATION}, {DROPOUT}, {RELU_POOL}, {DENSE}});
}

TEST_CASE("choose_kernels: overlapping windows, and the relu before them", "[12.4]") {
  // pool3s2 windows overlap: lesson 08's pool, so the relu before it is not folded.
  expect_choices("conv3x3x8,relu,pool3s2,dense10", 2, 15, GpuLayers::lesson09,
                 {{IMPLICIT}, {RELU_POOL}, {L08, beyond_mnist::kPoolWindowsOverlap}, {DENSE}});
}

TEST_CASE("choose_kernels: strided convolutions (the first needs no input gradient)", "[12.4]") {
  // 1x33x33 -> 8x16x16 -> 8x7x7 -> 8x7x7. conv1 is strided but first; conv2 is strided and needs
  // its input gradient; conv3 (8 input channels, 3x3, stride 1, 7x7 out) runs on the tiled kernels.
  expect_choices("conv3x3x8s2,relu,conv3x3x8s2,relu,conv3x3x8p1,relu,dense10", 1, 33, GpuLayers::lesson09,
                 {{IMPLICIT}, {RELU_POOL}, {L08, beyond_mnist::kStridedInputGradient}, {RELU_POOL}, {TILED},
                  {RELU_POOL}, {DENSE}});
}

TEST_CASE("choose_kernels: lesson 08's network keeps lesson 08's layers, and yours", "[12.4]") {
  const char* asked = beyond_mnist::kAskedForLesson08;
  expect_choices("conv3x3x32,relu,conv3x3x64,relu,pool2,dropout0.25,dense128,tanh,dense10", 1, 28, GpuLayers::lesson08,
                 {{L08, asked}, {L08, asked}, {L08, asked}, {L08, asked}, {L08, asked}, {DROPOUT}, {L08, asked},
                  {ACTIVATION}, {L08, asked}});
}

TEST_CASE("choose_kernels: an output under 4 x 4 is no tiled conv's", "[12.4]") {
  // 1x17x17 -> 8x8x8 -> 8x3x3: conv3 has 8 channels and stride 1 but a 3x3 output.
  expect_choices("conv3x3x8s2,relu,conv3x3x8s2,relu,conv3x3x8p1,relu,dense10", 1, 17, GpuLayers::lesson09,
                 {{IMPLICIT}, {RELU_POOL}, {L08, beyond_mnist::kStridedInputGradient}, {RELU_POOL}, {IMPLICIT},
                  {RELU_POOL}, {DENSE}});
}

TEST_CASE("choose_kernels: a layer the list does not have is an error", "[12.4]") {
  const std::vector<host_training::LayerPlan> plans = plans_of("dense10", 1, 28);
  CHECK_THROWS_AS(beyond_mnist::choose_kernels(plans, 1, GpuLayers::lesson09), course::Error);
}
