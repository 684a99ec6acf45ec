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
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "step_graph.hpp"
#include "tensor_core_convs.hpp"
#include "tensor_cores.hpp"

namespace {

// ---- tolerances and why --------------------------------------------------------------------------
// BF16 keeps 8 significant bits: every input of a convolution is rounded by up to 2^-9 (0.2 %) of
// itself, and TF32 (11 bits) the dense products' by 2^-12. Sums of a few hundred such products with
// mixed signs keep that relative size; through the network's four products and back, the gradients
// and the steps they make differ from FP32's by about 1 % of each tensor's largest entry. So: losses
// rtol 1e-2, each tensor's step after three updates atol 3e-2 * its largest + rtol 3e-2. A layer
// that skips its own weights, reads stale ones or drops a weight gradient is off by 30 % or more.
constexpr double kLossRtol = 1e-2, kStepAtolOfMax = 3e-2, kStepRtol = 3e-2;
constexpr int kSteps = 3, kBatch = 16, kSide = 22;

// conv1 (one input channel) and conv2 (32 -> 64); 22 -> pool 11 -> pool 5: odd sizes on purpose.
constexpr const char* kModel = "conv3x3x32p1, relu, pool2, conv3x3x64p1, relu, pool2, dense64, relu, dense10";

struct Run {
  std::vector<float> losses;
  std::vector<host_training::Parameter> after;
  std::vector<std::string> kernels;  // what each layer runs
};

Run train(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
          const beyond_mnist::OtherKernels& other, bool graph, const std::vector<float>& x,
          const std::vector<int>& labels) {
  mnist_gpu::GpuNetwork net(spec, init, kBatch, mnist_gpu::ConvAlgorithm::automatic,
                            beyond_mnist::gpu_layer_maker(spec, 1, beyond_mnist::GpuLayers::lesson09, other),
                            beyond_mnist::fused_loss_maker());
  fast_training::Stream stream;
  net.set_stream(stream.get());
  host_training::OptimizerConfig config;
  config.kind = "sgd", config.lr = 0.01f;  // small steps: the loss falls, no step amplifies the rounding
  mnist_gpu::DeviceOptimizer optimizer(config, net.parameters());
  const size_t per_example = size_t(kSide) * kSide;
  course::DeviceBuffer<float> all_x(x), step_x(size_t(kBatch) * per_example);
  course::DeviceBuffer<int> all_labels(labels), step_labels{size_t(kBatch)};
  auto enqueue_step = [&] {
    net.forward_backward(step_x.data(), step_labels.data(), kBatch);
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
  return run;
}

}  // namespace

TEST_CASE("lesson 12's layers on lesson 10's BF16 convolutions take lesson 09's FP32 steps, up to BF16's rounding",
          "[12-other_kernels_gpu]") {
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
  beyond_mnist::OtherKernels bf16;
  bf16.conv = std::make_shared<tensor_cores::TensorCoreConvs>();
  bf16.math = fast_training::GemmMath::tf32;
  const Run direct = train(spec, init, bf16, false, x, labels);
  const Run replayed = train(spec, init, bf16, true, x, labels);

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
  }
  for (size_t t = 0; t < init.size(); ++t) {
    CAPTURE(init[t].name);
    std::vector<double> want(init[t].value.size()), got(want.size());
    double largest = 0;
    for (size_t k = 0; k < want.size(); ++k) {
      want[k] = double(fp32.after[t].value[k]) - init[t].value[k];
      got[k] = double(direct.after[t].value[k]) - init[t].value[k];
      largest = std::max(largest, std::fabs(want[k]));
    }
    REQUIRE(largest > 0);
    REQUIRE_ALL_CLOSE(got, want, kStepAtolOfMax * largest, kStepRtol);
    // The graph replays the very same kernels on the very same data: the same weights to the bit.
    REQUIRE_ALL_CLOSE(replayed.after[t].value, direct.after[t].value, 0.0, 0.0);
  }
}
