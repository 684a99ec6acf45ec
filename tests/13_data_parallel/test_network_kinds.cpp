// Lesson 13 (given code): the two kinds of network a replica trains (network_kinds.hpp). Both report
// every layer with parameters once per backward pass, last layer first; the layer list's evaluation
// runs without dropout and leaves training on; a layer list that cannot launch on a stream is
// refused, naming the layer. References: the layer order counted by hand, lesson 08's network with
// dropout switched off by lesson 08's own set_training.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "beyond_gpu_layers.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "network.hpp"
#include "network_kinds.hpp"
#include "step_graph.hpp"
#include "device_download.hpp"

using course::DeviceBuffer;
using data_parallel::NetworkKind;

namespace {

constexpr int kBatch = 7;

using course::test::download;

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
}

host_training::ModelSpec sized(host_training::ModelSpec spec) {
  spec.height = spec.width = 13;
  return spec;
}

}  // namespace

TEST_CASE("both network kinds report each layer with parameters once per backward pass, last first",
          "[replica_networks]") {
  const NetworkKind kind = GENERATE(NetworkKind::fast_network, NetworkKind::layer_list);
  CAPTURE(data_parallel::network_kind_name(kind));
  // Five layers with parameters: tensors 0/1 (conv1) .. 8/9 (the last dense layer).
  const host_training::ModelSpec spec = sized(host_training::model_from_text(
      kind == NetworkKind::fast_network
          ? "conv3x3x8p1, relu, pool2, conv3x3x16p1, relu, pool2, dense24, relu, dense16, relu, dense10"
          : "conv3x3x8p1, sigmoid, conv3x3x16, relu, pool2, dropout0.3, dense24, tanh, dense16, relu, dense10"));
  DeviceBuffer<float> x(course::test::random_vector(size_t(kBatch) * 13 * 13, 31, 0.0f, 1.0f));
  DeviceBuffer<int> labels(std::vector<int>{3, 1, 4, 1, 5, 9, 2});
  fast_training::Stream stream;
  const auto net = data_parallel::make_replica_network(kind, spec, host_training::init_parameters(spec, 30), kBatch,
                                                       stream.get(), fast_training::ConvEngine::implicit_gemm, 5);
  std::vector<size_t> reports;
  net->set_gradient_hook([&](size_t weight) { reports.push_back(weight); });
  for (int pass = 0; pass < 2; ++pass) {
    CAPTURE(pass);
    reports.clear();
    net->forward_backward(x.data(), labels.data(), kBatch);
    REQUIRE(reports == std::vector<size_t>{8, 6, 4, 2, 0});
  }
  net->set_gradient_hook(nullptr);
  reports.clear();
  net->forward_backward(x.data(), labels.data(), kBatch);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  REQUIRE(reports.empty());
  REQUIRE(all_finite(download(net->row_loss(), kBatch)));
}

TEST_CASE("a layer list evaluates without dropout and trains with it afterwards", "[replica_networks]") {
  const host_training::ModelSpec spec = sized(host_training::model_from_text("conv3x3x8, relu, pool2, dropout0.5, dense10"));
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, 40);
  DeviceBuffer<float> x(course::test::random_vector(size_t(kBatch) * 13 * 13, 41, 0.0f, 1.0f));
  DeviceBuffer<int> labels(std::vector<int>{0, 1, 2, 3, 4, 5, 6});
  const size_t logits = size_t(kBatch) * 10;

  // Lesson 08's network with dropout switched off by lesson 08's own switch: what evaluation must give.
  mnist_gpu::GpuNetwork reference(spec, init, kBatch, mnist_gpu::ConvAlgorithm::automatic,
                                  beyond_mnist::beyond_gpu_layers(42, beyond_mnist::GpuLayers::lesson09).get(),
                                  beyond_mnist::fused_loss_maker());
  reference.set_training(false);
  reference.forward(x.data(), kBatch);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> expected = download(reference.logits(), logits);

  data_parallel::LayerListNetwork net(spec, init, kBatch, nullptr, 42);
  framework::DeviceNetwork& as_trained = net;  // as every trainer and the evaluation see it
  REQUIRE(as_trained.max_batch() == kBatch);
  REQUIRE(as_trained.input_size() == 13 * 13);
  CUDA_CHECK(cudaMemset(const_cast<float*>(as_trained.logits()), 0xff, logits * sizeof(float)));  // NaN
  as_trained.set_training(false);
  as_trained.forward_and_loss(x.data(), labels.data(), kBatch);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_ALL_CLOSE(download(as_trained.logits(), logits), expected, 0.0, 0.0);

  // Training again: dropout drops (half of the dense layer's inputs), so the logits differ.
  as_trained.set_training(true);
  net.forward_backward(x.data(), labels.data(), kBatch);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> trained = download(net.logits(), logits);
  REQUIRE(all_finite(trained));
  size_t differ = 0;
  for (size_t i = 0; i < logits; ++i) differ += trained[i] != expected[i];
  REQUIRE(differ > logits / 2);
}

TEST_CASE("a layer list that cannot launch on a stream is refused, and network kinds have names", "[replica_networks]") {
  // A max-pool after tanh: its input can be negative, so lesson 09's pool kernel (which folds in a
  // ReLU) cannot run it, and lesson 08's pool launches on the default stream.
  const host_training::ModelSpec spec = sized(host_training::model_from_text("conv3x3x4, tanh, pool2, dense10"));
  std::string message;
  try {
    data_parallel::LayerListNetwork(spec, host_training::init_parameters(spec, 1), 4, nullptr, 1);
  } catch (const course::Error& e) {
    message = e.what();
  }
  CAPTURE(message);
  REQUIRE(message.find("layer 3 'pool2'") != std::string::npos);
  REQUIRE(data_parallel::network_kind_by_name("fast") == NetworkKind::fast_network);
  REQUIRE(data_parallel::network_kind_by_name("layers") == NetworkKind::layer_list);
  REQUIRE(std::string(data_parallel::network_kind_name(NetworkKind::layer_list)) == "layers");
  REQUIRE_THROWS_AS(data_parallel::network_kind_by_name("slow"), course::Error);
}
