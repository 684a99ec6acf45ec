// Lesson 12, the layers on other kernels (OtherConvLayer): with lesson 10's Tensor Core convolutions
// in BF16 and the other products in TF32 (what train_speedrun --precision bf16 runs), lesson 08's
// network of lesson 12's layers takes the steps the FP32 network of lesson 09's kernels takes, up to
// BF16's rounding; replayed from a CUDA graph, it takes exactly the steps it takes launched directly.
#include <algorithm>
#include <memory>
#include <cmath>
#include <string>
#include <vector>

#include "beyond_gpu_layers.hpp"
#include "branch.hpp"
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "fast_gpu_layers.hpp"
#include "host_training.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "step_graph.hpp"
#include "tensor_core_convs.hpp"
#include "tensor_cores.hpp"
#include "tf32_products.hpp"

namespace {

// ---- tolerances and why --------------------------------------------------------------------------
// BF16 keeps 8 significant bits: every input of a convolution is rounded by up to 2^-9 (0.2 %) of
// itself, and TF32 (11 bits) the dense products' by 2^-12. A forward pass then differs from FP32's by
// a few 0.1 % (logits: normwise 1e-2; losses: rtol 1e-2). A weight gradient is a sum over the whole
// batch's pixels (conv1's: 16 x 22 x 22 = 7744 products) that cancels down to a small mean: its
// rounding error stays the size of the terms' while the sum shrinks, so single entries can be off by
// several % of the tensor's largest (measured: 8 % on conv1's weights, 38 of 288 entries above 3 %).
// So the steps are compared as a whole: |got - want| / |want| (Euclidean norms over the tensor)
// at most 0.1. A weight gradient left out or taken from another layer is off by 100 %; so is a
// forward pass that reads other weights than the current ones (the last check).
constexpr double kLossRtol = 1e-2, kStepNormwise = 0.1, kLogitNormwise = 1e-2;
constexpr int kSteps = 3, kBatch = 16, kSide = 22;

// conv1 (one input channel) and conv2 (32 -> 64); 22 -> pool 11 -> pool 5: odd sizes on purpose.
constexpr const char* kModel = "conv3x3x32p1, relu, pool2, conv3x3x64p1, relu, pool2, dense64, relu, dense10";

// |got - want| / |want|, Euclidean norms over the whole tensor.
double normwise_error(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (size_t k = 0; k < want.size(); ++k) diff += (got[k] - want[k]) * (got[k] - want[k]), norm += want[k] * want[k];
  return std::sqrt(diff / norm);
}

std::vector<double> logits_of(mnist_gpu::GpuNetwork& net, const float* x) {
  net.forward(x, kBatch);
  std::vector<float> logits(size_t(kBatch) * 10, std::nanf(""));
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(logits.data(), net.logits(), logits.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return std::vector<double>(logits.begin(), logits.end());
}

beyond_mnist::OtherKernels bf16_kernels() {
  beyond_mnist::OtherKernels bf16;
  bf16.conv = std::make_shared<tensor_cores::TensorCoreConvs>();
  bf16.products = &tensor_cores::tf32_products();
  return bf16;
}

mnist_gpu::GpuNetwork network(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                              const beyond_mnist::OtherKernels& other) {
  return mnist_gpu::GpuNetwork(spec, init, kBatch, mnist_gpu::ConvAlgorithm::automatic,
                               beyond_mnist::beyond_gpu_layers(1, beyond_mnist::GpuLayers::lesson09, other).get(),
                               beyond_mnist::fused_loss_maker());
}

struct Run {
  std::vector<float> losses;
  std::vector<host_training::Parameter> after;
  std::vector<std::string> kernels;  // what each layer runs
};

Run train(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
          const beyond_mnist::OtherKernels& other, bool graph, const std::vector<float>& x,
          const std::vector<int>& labels, bool branches = false) {
  mnist_gpu::GpuNetwork net = network(spec, init, other);
  fast_training::Stream stream;
  net.set_stream(stream.get());
  fast_training::Branch branch(stream.get());  // lesson 09's 09.12: the weight gradients on its side
  if (branches) REQUIRE(beyond_mnist::use_branch(net, &branch) > 0);
  host_training::OptimizerConfig config;
  config.kind = framework::OptimizerKind::sgd, config.lr = 0.01f;  // small steps: the loss falls, no step amplifies the rounding
  mnist_gpu::DeviceOptimizer optimizer(config, net.parameters());
  const size_t per_example = size_t(kSide) * kSide;
  course::DeviceBuffer<float> all_x(x), step_x(size_t(kBatch) * per_example);
  course::DeviceBuffer<int> all_labels(labels), step_labels{size_t(kBatch)};
  auto enqueue_step = [&] {
    net.forward_backward(step_x.data(), step_labels.data(), kBatch);
    if (branches) branch.join();  // the update reads the side's gradients
    optimizer.step(stream.get());
  };
  fast_training::GraphExec exec;
  if (graph) exec = fast_training::GraphExec(fast_training::capture_graph(stream.get(), enqueue_step));
  Run run;
  for (int s = 0; s < kSteps; ++s) {
    CUDA_CHECK(cudaMemcpyAsync(step_x.data(), all_x.data() + size_t(s) * kBatch * per_example, step_x.bytes(),
                               cudaMemcpyDeviceToDevice, stream.get()));
    CUDA_CHECK(cudaMemcpyAsync(step_labels.data(), all_labels.data() + size_t(s) * kBatch, step_labels.bytes(),
                               cudaMemcpyDeviceToDevice, stream.get()));
    if (graph)
      exec.launch(stream.get());
    else
      enqueue_step();
    std::vector<float> rows(kBatch, std::nanf(""));
    CUDA_CHECK(cudaMemcpyAsync(rows.data(), net.loss().row_loss(), rows.size() * sizeof(float), cudaMemcpyDeviceToHost,
                               stream.get()));
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    double sum = 0;
    for (float r : rows) sum += r;
    run.losses.push_back(float(sum / kBatch));
  }
  run.after = net.parameters().download();
  for (const auto& layer : net.layers()) run.kernels.push_back(layer->kernels());
  if (branches) beyond_mnist::use_branch(net, nullptr);
  return run;
}

}  // namespace

TEST_CASE("lesson 12's layers on lesson 10's BF16 convolutions take lesson 09's FP32 steps, up to BF16's rounding",
          "[12.5]") {
  INFO(tensor_cores::tensor_core_problem());  // the program asks for compute capability 8.0 (MIN_CC 80)
  REQUIRE(tensor_cores::tensor_core_problem().empty());
  host_training::ModelSpec spec = host_training::model_from_text(kModel);
  spec.height = spec.width = kSide;
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, 1201);
  const std::vector<float> x = course::test::random_vector(size_t(kSteps) * kBatch * kSide * kSide, 1202, 0.f, 1.f);
  std::vector<int> labels;
  course::Rng rng(1203, 1);
  for (int i = 0; i < kSteps * kBatch; ++i) labels.push_back(rng.uniform_int(10));

  const Run fp32 = train(spec, init, {}, false, x, labels);
  const beyond_mnist::OtherKernels bf16 = bf16_kernels();
  const Run direct = train(spec, init, bf16, false, x, labels);
  const Run replayed = train(spec, init, bf16, true, x, labels);
  const Run branched = train(spec, init, bf16, true, x, labels, true);  // weight gradients on a side stream

  // Both convolutions run on the Tensor Cores; FP32 runs none there.
  const std::string tensor_cores = bf16.conv->name();
  CAPTURE(direct.kernels, fp32.kernels);
  REQUIRE(std::count(direct.kernels.begin(), direct.kernels.end(), tensor_cores) == 2);
  REQUIRE(std::count(fp32.kernels.begin(), fp32.kernels.end(), tensor_cores) == 0);

  for (int s = 0; s < kSteps; ++s) {
    CAPTURE(s, fp32.losses[s], direct.losses[s]);
    REQUIRE(std::isfinite(direct.losses[s]));
    REQUIRE(std::fabs(direct.losses[s] - fp32.losses[s]) <= kLossRtol * std::fabs(fp32.losses[s]));
    REQUIRE(replayed.losses[s] == direct.losses[s]);
    REQUIRE(branched.losses[s] == direct.losses[s]);
  }
  for (size_t t = 0; t < init.size(); ++t) {
    CAPTURE(init[t].name);
    std::vector<double> want(init[t].value.size()), got(want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      want[k] = double(fp32.after[t].value[k]) - init[t].value[k];
      got[k] = double(direct.after[t].value[k]) - init[t].value[k];
    }
    const double error = normwise_error(got, want);
    CAPTURE(error);
    REQUIRE(error <= kStepNormwise);
    // The graph replays the very same kernels on the very same data: the same weights to the bit.
    REQUIRE_ALL_CLOSE(replayed.after[t].value, direct.after[t].value, 0.0, 0.0);
    REQUIRE_ALL_CLOSE(branched.after[t].value, direct.after[t].value, 0.0, 0.0);  // the same kernels, side by side
  }
}

// The layer keeps its own BF16 copy of the weights: every forward pass must write it from the
// weights as they are then, not as they were when the copy was first made.
TEST_CASE("lesson 12's layers on lesson 10's BF16 convolutions read the weights as they are at each pass",
          "[12.5]") {
  REQUIRE(tensor_cores::tensor_core_problem().empty());
  host_training::ModelSpec spec = host_training::model_from_text(kModel);
  spec.height = spec.width = kSide;
  const course::DeviceBuffer<float> x(course::test::random_vector(size_t(kBatch) * kSide * kSide, 1211, 0.f, 1.f));
  const std::vector<host_training::Parameter> first = host_training::init_parameters(spec, 1212);
  const std::vector<host_training::Parameter> second = host_training::init_parameters(spec, 1213);
  mnist_gpu::GpuNetwork bf16 = network(spec, first, bf16_kernels());
  mnist_gpu::GpuNetwork fp32_first = network(spec, first, {}), fp32_second = network(spec, second, {});
  const std::vector<double> want_first = logits_of(fp32_first, x.data()), want_second = logits_of(fp32_second, x.data());
  REQUIRE(normwise_error(want_first, want_second) > 0.3);  // the two sets of weights are far apart
  const std::vector<double> got_first = logits_of(bf16, x.data());
  bf16.parameters().upload(second);  // new weights, the same network
  const std::vector<double> got_second = logits_of(bf16, x.data());
  CHECK(normwise_error(got_first, want_first) <= kLogitNormwise);
  CHECK(normwise_error(got_second, want_second) <= kLogitNormwise);
}

// Lesson 09's thin kernels (09.13) for the first conv, its relu and pool while training: FP32 steps
// as the separate passes' up to rounding; with the BF16 convolutions after it, the same bits direct
// and from a graph with the weight gradients on a side stream; evaluation (logits) as before.
TEST_CASE("lesson 12's thin first layer (09.13) takes the separate passes' steps", "[12.5]") {
  REQUIRE(tensor_cores::tensor_core_problem().empty());
  host_training::ModelSpec spec = host_training::model_from_text(kModel);
  spec.height = spec.width = kSide;
  REQUIRE(beyond_mnist::runs_thin_first(spec, kBatch));
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, 1221);
  const std::vector<float> x = course::test::random_vector(size_t(kSteps) * kBatch * kSide * kSide, 1222, 0.f, 1.f);
  std::vector<int> labels;
  course::Rng rng(1223, 1);
  for (int i = 0; i < kSteps * kBatch; ++i) labels.push_back(rng.uniform_int(10));

  beyond_mnist::OtherKernels thin;
  thin.thin_first = true;
  beyond_mnist::OtherKernels thin_bf16 = bf16_kernels();
  thin_bf16.thin_first = true;
  const Run fp32 = train(spec, init, {}, false, x, labels);
  const Run fused = train(spec, init, thin, false, x, labels);
  const Run bf16_direct = train(spec, init, thin_bf16, false, x, labels);
  const Run bf16_branched = train(spec, init, thin_bf16, true, x, labels, true);
  CAPTURE(fused.kernels);
  REQUIRE(fused.kernels[0].find("09.13") != std::string::npos);
  REQUIRE(fp32.kernels[0].find("09.13") == std::string::npos);
  for (int s = 0; s < kSteps; ++s) {
    CAPTURE(s, fp32.losses[s], fused.losses[s], bf16_direct.losses[s]);
    REQUIRE(std::isfinite(fused.losses[s]));
    REQUIRE(std::fabs(fused.losses[s] - fp32.losses[s]) <= 1e-4 * std::fabs(fp32.losses[s]));
    REQUIRE(std::fabs(bf16_direct.losses[s] - fp32.losses[s]) <= kLossRtol * std::fabs(fp32.losses[s]));
    REQUIRE(bf16_branched.losses[s] == bf16_direct.losses[s]);
  }
  for (size_t t = 0; t < init.size(); ++t) {
    CAPTURE(init[t].name);
    std::vector<double> want(init[t].value.size()), got(want.size()), got_bf16(want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      want[k] = double(fp32.after[t].value[k]) - init[t].value[k];
      got[k] = double(fused.after[t].value[k]) - init[t].value[k];
      got_bf16[k] = double(bf16_direct.after[t].value[k]) - init[t].value[k];
    }
    // FP32 both ways: only the sums' order differs (and, rarely, a pool's choice between near-equal values).
    CHECK(normwise_error(got, want) <= 1e-3);
    CHECK(normwise_error(got_bf16, want) <= kStepNormwise);
    REQUIRE_ALL_CLOSE(bf16_branched.after[t].value, bf16_direct.after[t].value, 0.0, 0.0);
  }
  // Evaluation runs the separate passes: the same logits as a network without the thin layer.
  mnist_gpu::GpuNetwork with = network(spec, init, thin), without = network(spec, init, {});
  with.set_training(false), without.set_training(false);
  const course::DeviceBuffer<float> batch(std::vector<float>(x.begin(), x.begin() + kBatch * kSide * kSide));
  REQUIRE(logits_of(with, batch.data()) == logits_of(without, batch.data()));
}
