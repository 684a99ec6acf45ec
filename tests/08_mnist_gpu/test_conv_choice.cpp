// Lesson 08 (given code, no GPU needed): which convolution algorithm each layer runs under
// --conv auto, and the names the command line accepts.
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "conv_layer.hpp"

using mnist_gpu::ConvAlgorithm;

namespace {

std::vector<host_training::LayerPlan> conv_plans(const std::string& model) {
  std::vector<host_training::LayerPlan> convs;
  for (const host_training::LayerPlan& p : host_training::plan_layers(host_training::model_by_name(model)))
    if (p.spec.kind == host_training::LayerKind::conv) convs.push_back(p);
  return convs;
}

host_training::LayerPlan conv_plan(int in_c, int kernel) {
  host_training::LayerPlan p;
  p.spec.kind = host_training::LayerKind::conv;
  p.spec.kernel = kernel;
  p.in_c = in_c;
  return p;
}

}  // namespace

TEST_CASE("auto runs direct where the im2col GEMM is thin (in_c*k*k < 64), im2col elsewhere", "[conv_choice]") {
  const auto a = conv_plans("a");
  REQUIRE(a.size() == 2);
  CHECK(mnist_gpu::choose_conv_algorithm(ConvAlgorithm::automatic, a[0]) == ConvAlgorithm::direct);  // K = 25
  CHECK(mnist_gpu::choose_conv_algorithm(ConvAlgorithm::automatic, a[1]) == ConvAlgorithm::im2col);  // K = 800
  const auto small = conv_plans("small");
  REQUIRE(small.size() == 1);
  CHECK(mnist_gpu::choose_conv_algorithm(ConvAlgorithm::automatic, small[0]) == ConvAlgorithm::direct);  // K = 9

  // The boundary: 7*3*3 = 63 direct, 4*4*4 = 64 im2col.
  CHECK(mnist_gpu::choose_conv_algorithm(ConvAlgorithm::automatic, conv_plan(7, 3)) == ConvAlgorithm::direct);
  CHECK(mnist_gpu::choose_conv_algorithm(ConvAlgorithm::automatic, conv_plan(4, 4)) == ConvAlgorithm::im2col);

  // An explicit request is kept whatever the shape.
  for (const auto& p : {a[0], a[1], small[0]})
    for (ConvAlgorithm requested : {ConvAlgorithm::direct, ConvAlgorithm::im2col})
      CHECK(mnist_gpu::choose_conv_algorithm(requested, p) == requested);
}

TEST_CASE("auto sizes each layer's workspace for the algorithm it runs", "[conv_choice]") {
  for (const auto& p : conv_plans("a")) {
    const ConvAlgorithm chosen = mnist_gpu::choose_conv_algorithm(ConvAlgorithm::automatic, p);
    CHECK(mnist_gpu::ConvLayer::workspace_floats(p, 37, ConvAlgorithm::automatic) ==
          mnist_gpu::ConvLayer::workspace_floats(p, 37, chosen));
  }
  // The two algorithms need different workspaces for conv2, so the check above can tell them apart.
  const auto conv2 = conv_plans("a")[1];
  CHECK(mnist_gpu::ConvLayer::workspace_floats(conv2, 37, ConvAlgorithm::direct) !=
        mnist_gpu::ConvLayer::workspace_floats(conv2, 37, ConvAlgorithm::im2col));
}

TEST_CASE("conv algorithm names: auto, im2col, direct; anything else names the choices", "[conv_choice]") {
  for (ConvAlgorithm a : {ConvAlgorithm::direct, ConvAlgorithm::im2col, ConvAlgorithm::automatic})
    CHECK(mnist_gpu::conv_algorithm_by_name(mnist_gpu::conv_algorithm_name(a)) == a);
  CHECK(std::string(mnist_gpu::conv_algorithm_name(ConvAlgorithm::automatic)) == "auto");
  std::string message;
  try {
    mnist_gpu::conv_algorithm_by_name("fft");
  } catch (const course::Error& e) {
    message = e.what();
  }
  CHECK(message.find("'fft'") != std::string::npos);
  CHECK(message.find("auto") != std::string::npos);
}
