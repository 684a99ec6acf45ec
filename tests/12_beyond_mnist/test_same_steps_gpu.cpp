// Lesson 12, the networks on the GPU: the seeds' networks (models/) take the same training steps
// on the GPU (lesson 08's network with lesson 12's layers and Adadelta) as on the CPU
// (BeyondHostNetwork and lesson 02's Optimizer with Adadelta): same initial weights, same batches,
// same dropout masks. Also: evaluation (dropout off) gives the CPU's logits.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adadelta_rules.hpp"
#include "beyond_gpu_layers.hpp"
#include "branch.hpp"
#include "fast_gpu_layers.hpp"
#include "beyond_host_network.hpp"
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "step_graph.hpp"
#include "your_steps_check.hpp"

#ifndef COURSE_MODELS_DIR
#error "COURSE_MODELS_DIR: lesson 12's models folder"
#endif

namespace {

// ---- tolerances and why --------------------------------------------------------------------------
// Both sides compute in float and add their sums in different orders (GEMM tiles, FMAs): every
// activation differs by a few ulps (~1e-6 relative). Losses (~2.3): atol 1e-4 + rtol 1e-4 after
// 3 steps. A max-pool window or ReLU whose two candidates are within that noise may decide the
// other way on the GPU (the real networks have thousands of windows per batch; no seed avoids
// them all), which moves a few entries of a weight gradient by a few % of the tensor's largest.
// So the STEP each tensor took (weights after minus before) is compared with atol 5e-2 * the
// largest step of the tensor + rtol 5e-2. A wrong chain (a layer skipped, another mask, a missing
// 1/(1 - rate), another optimizer rule) changes the steps by 30-100 %.
constexpr double kLossAtol = 1e-4, kLossRtol = 1e-4;
constexpr double kStepAtolOfMax = 5e-2, kStepRtol = 5e-2;
constexpr double kLogitAtol = 1e-4, kLogitRtol = 1e-4;
constexpr int kSteps = 3, kBatch = 16;

struct Case {
  const char* model;
  int channels, side;
  const char* optimizer;
  float lr;
};

host_training::ModelSpec spec_of(const Case& c) {
  host_training::ModelSpec spec = host_training::model_by_name(std::string("@") + COURSE_MODELS_DIR + "/" + c.model + ".txt");
  spec.in_channels = c.channels, spec.height = spec.width = c.side;
  return spec;
}

// How the GPU runs the steps: lesson 08's layers; lesson 09's kernels where they run them, launched
// one by one; or those on a stream of their own, the step (forward, loss, backward, update) captured
// once into a CUDA graph and replayed for every step, the batch copied into the same buffers first;
// or that graph with the weight gradients on a branch's side stream (lesson 09's 09.12).
enum class Mode { lesson08, lesson09, graph, graph_branches };
constexpr Mode kModes[] = {Mode::lesson08, Mode::lesson09, Mode::graph, Mode::graph_branches};
const char* mode_name(Mode m) {
  return m == Mode::lesson08 ? "lesson 08's layers"
         : m == Mode::lesson09 ? "lesson 09's kernels where they run, one by one"
         : m == Mode::graph ? "lesson 09's kernels, steps replayed from one CUDA graph"
                            : "lesson 09's kernels, steps replayed from one CUDA graph, weight gradients on a side stream";
}

void check_same_steps(const Case& c, Mode mode) {
  const host_training::ModelSpec spec = spec_of(c);
  const uint64_t seed = 3;
  const size_t per_example = size_t(c.channels) * c.side * c.side;
  const std::vector<float> x = course::test::random_vector(size_t(kSteps) * kBatch * per_example, seed, 0.f, 1.f);
  std::vector<int> labels;
  course::Rng rng(seed, 9);
  for (int i = 0; i < kSteps * kBatch; ++i) labels.push_back(rng.uniform_int(spec.classes));

  host_training::OptimizerConfig config;
  config.kind = framework::optimizer_kind(c.optimizer), config.lr = c.lr, config.rho = 0.95f;
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, seed);

  // The CPU: lesson 11's layers and yours, lesson 02's optimizer with Adadelta.
  beyond_mnist::BeyondHostNetwork cpu(spec, init, 2, seed);
  host_training::Optimizer cpu_opt(config, cpu.parameters(), &beyond_mnist::adadelta_rule());
  std::vector<float> cpu_losses;
  for (int s = 0; s < kSteps; ++s) {
    cpu_losses.push_back(cpu.forward_backward(x.data() + size_t(s) * kBatch * per_example,
                                              labels.data() + size_t(s) * kBatch, kBatch));
    cpu_opt.step(cpu.parameters());
  }

  // The GPU: lesson 08's network with lesson 12's layers, lesson 08's optimizer with Adadelta.
  const bool graph = mode == Mode::graph || mode == Mode::graph_branches;
  const auto layers = mode == Mode::lesson08 ? beyond_mnist::GpuLayers::lesson08 : beyond_mnist::GpuLayers::lesson09;
  mnist_gpu::GpuNetwork gpu(spec, init, kBatch, mnist_gpu::ConvAlgorithm::automatic,
                            beyond_mnist::beyond_gpu_layers(seed, layers).get(),
                            layers == beyond_mnist::GpuLayers::lesson09 ? beyond_mnist::fused_loss_maker() : nullptr);
  INFO(c.model << " on the GPU: " << mode_name(mode) << ", convolutions: " << gpu.conv_summary());
  REQUIRE(gpu.runs_on_stream() == (layers == beyond_mnist::GpuLayers::lesson09));
  REQUIRE(beyond_mnist::stream_problem(spec).empty());
  mnist_gpu::DeviceOptimizer gpu_opt(config, gpu.parameters(), &beyond_mnist::adadelta_device_rule());
  course::DeviceBuffer<float> dx(x), step_x(size_t(kBatch) * per_example);
  course::DeviceBuffer<int> dlabels(labels), step_labels{size_t(kBatch)};
  gpu.set_training(true);
  fast_training::Stream stream;
  fast_training::Branch branch(stream.get());
  fast_training::GraphExec step_graph;
  if (graph) {
    gpu.set_stream(stream.get());
    if (mode == Mode::graph_branches) REQUIRE(beyond_mnist::use_branch(gpu, &branch) > 0);
    step_graph = fast_training::GraphExec(fast_training::capture_graph(stream.get(), [&] {
      gpu.forward_backward(step_x.data(), step_labels.data(), kBatch);
      if (mode == Mode::graph_branches) branch.join();  // the update reads the side's gradients
      gpu_opt.step(stream.get());
    }));
  }
  for (int s = 0; s < kSteps; ++s) {
    const float* batch_x = dx.data() + size_t(s) * kBatch * per_example;
    const int* batch_labels = dlabels.data() + size_t(s) * kBatch;
    std::vector<float> rows(static_cast<size_t>(kBatch), 0.0f);
    if (graph) {  // the step's batch into the graph's buffers (the default stream waits for the stream)
      CUDA_CHECK(cudaMemcpy(step_x.data(), batch_x, step_x.bytes(), cudaMemcpyDeviceToDevice));
      CUDA_CHECK(cudaMemcpy(step_labels.data(), batch_labels, step_labels.bytes(), cudaMemcpyDeviceToDevice));
      step_graph.launch(stream.get());
      CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    } else {
      gpu.forward_backward(batch_x, batch_labels, kBatch);
    }
    CUDA_CHECK(cudaMemcpy(rows.data(), gpu.loss().row_loss(), rows.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double mean = 0;
    for (float r : rows) mean += r;
    mean /= kBatch;
    INFO(c.model << ": loss of step " << s + 1 << " (CPU " << cpu_losses[size_t(s)] << ")");
    CHECK(std::isfinite(mean));
    CHECK(std::fabs(mean - cpu_losses[size_t(s)]) <= kLossAtol + kLossRtol * std::fabs(cpu_losses[size_t(s)]));
    if (!graph) gpu_opt.step();
  }
  if (mode == Mode::graph_branches) beyond_mnist::use_branch(gpu, nullptr);
  if (graph) gpu.set_stream(nullptr);  // evaluation below on the default stream, as the trainer's

  const std::vector<host_training::Parameter> after = gpu.parameters().download();
  REQUIRE(after.size() == init.size());
  for (size_t t = 0; t < init.size(); ++t) {
    std::vector<double> cpu_step(init[t].value.size()), gpu_step(init[t].value.size());
    double largest = 0;
    for (size_t k = 0; k < cpu_step.size(); ++k) {
      cpu_step[k] = double(cpu.parameters()[t].value[k]) - init[t].value[k];
      gpu_step[k] = double(after[t].value[k]) - init[t].value[k];
      largest = std::max(largest, std::fabs(cpu_step[k]));
    }
    INFO(c.model << ": the step of " << init[t].name << " over " << kSteps << " updates (" << c.optimizer << ")");
    CHECK(largest > 0);
    REQUIRE_ALL_CLOSE(gpu_step, cpu_step, kStepAtolOfMax * largest, kStepRtol);
  }

  // Evaluation: dropout off on both sides, the updated weights.
  gpu.set_training(false);
  gpu.forward(dx.data(), kBatch);
  std::vector<float> gpu_logits(size_t(kBatch) * spec.classes), cpu_logits(gpu_logits.size());
  CUDA_CHECK(cudaMemcpy(gpu_logits.data(), gpu.logits(), gpu_logits.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cpu.forward(x.data(), kBatch, cpu_logits.data());
  INFO(c.model << ": evaluation logits");
  REQUIRE_ALL_CLOSE(gpu_logits, cpu_logits, kLogitAtol, kLogitRtol);
}

}  // namespace

TEST_CASE("mlp (dropout 0.2): 3 GPU steps with SGD equal the CPU's", "[12-same_steps_gpu]") {
  for (Mode mode : kModes) check_same_steps({"mlp", 1, 28, "sgd", 0.05f}, mode);
}
TEST_CASE("lenet5 on 3x32x32 (sigmoid): 3 GPU steps with Adadelta equal the CPU's", "[12-same_steps_gpu]") {
  for (Mode mode : kModes) check_same_steps({"lenet5", 3, 32, "adadelta", 1.0f}, mode);
}
TEST_CASE("mnist_cnn (dropout 0.25 and 0.5): 3 GPU steps with Adadelta equal the CPU's", "[12-same_steps_gpu]") {
  for (Mode mode : kModes) check_same_steps({"mnist_cnn", 1, 28, "adadelta", 1.0f}, mode);
}
TEST_CASE("colour_cnn on 3x32x32: 3 GPU steps with Adadelta equal the CPU's", "[12-same_steps_gpu]") {
  for (Mode mode : kModes) check_same_steps({"colour_cnn", 3, 32, "adadelta", 1.0f}, mode);
}

TEST_CASE("train_beyond's look at your steps passes finished kernels", "[12-same_steps_gpu]") {
  CHECK_NOTHROW(beyond_mnist::check_your_steps(true));
}

TEST_CASE("lenet5_classic (its third convolution a dense product): 3 GPU steps with SGD equal the CPU's",
          "[12-same_steps_gpu]") {
  for (Mode mode : kModes)
    check_same_steps({"lenet5_classic", 1, 28, "sgd", 0.1f}, mode);
}
