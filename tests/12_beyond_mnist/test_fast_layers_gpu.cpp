// Lesson 12, step 12.5 on the GPU: lesson 09's kernels as layers. Each network is built twice from
// the same weights, once of lesson 08's layers (its solutions: the reference) and once of lesson
// 09's kernels wherever they run them (your passes, on the layers choose_kernels gives), and one
// training pass (forward, loss, backward) must give the same losses and gradients; evaluation the
// same logits. Every layer's output and input gradient and every gradient start as NaN, so a pass
// that leaves one unwritten fails. The networks reach every layer of fast_gpu_layers.hpp but
// OtherConvLayer (the BF16 test of the same step): tiled and implicit convolutions with and without
// their input gradient, a conv that is a dense product, a relu folded into its pool and one that is
// not, a pool after a sigmoid, the thin first layer (09.13), the fused loss; with the weight
// gradients on a branch's side stream too (09.12), and a batch smaller than the largest.
#include <cmath>
#include <string>
#include <vector>

#include "beyond_gpu_layers.hpp"
#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course/stream.hpp"
#include "course_test.hpp"
#include "exact_checks.hpp"
#include "fast_training.hpp"
#include "framework/model.hpp"
#include "layer_shapes.hpp"  // conv_shape_of
#include "fast_gpu_layers.hpp"  // use_branch
#include "host_training.hpp"
#include "network.hpp"
#include "network_compare.hpp"

namespace {

// ---- tolerances and why --------------------------------------------------------------------------
// Both sides compute in float with other summation orders (a few ulps apart); a max-pool window
// whose two largest inputs are within that noise may pick the other one, which moves one entry of
// one example's gradient. Losses and logits: atol 1e-4 + rtol 1e-4. Gradients as whole tensors:
// |got - want| / |want| (Euclidean norms) at most 1e-3. A pass left out, a gradient written to
// the wrong layer or a mask dropped is off by 10-100 %.
constexpr double kAtol = 1e-4, kRtol = 1e-4, kGradNormwise = 1e-3;
constexpr int kMaxBatch = 16;

struct Case {
  const char* model;
  int channels, side;
  bool thin_first;  // the first conv, relu and pool on 09.13's thin kernels
};

void poison(mnist_gpu::GpuNetwork& net) {
  for (auto& layer : net.layers()) {
    CUDA_CHECK(cudaMemset(layer->output(), 0xFF, size_t(kMaxBatch) * layer->out_size() * sizeof(float)));
    CUDA_CHECK(cudaMemset(layer->input_grad(), 0xFF, size_t(kMaxBatch) * layer->in_size() * sizeof(float)));
  }
  CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xFF, net.parameters().total() * sizeof(float)));
}

std::vector<double> download(const float* device, size_t n) { return course::test::download_doubles(device, n); }

void expect_close(const std::string& what, const std::vector<double>& got, const std::vector<double>& want) {
  course::test::expect_values_close(what, got, want, kAtol, kRtol, "lesson 08's layers");
}

void expect_gradient(const std::string& what, const std::vector<double>& got, const std::vector<double>& want) {
  course::test::expect_tensor_close(what, got, want, kGradNormwise, "lesson 08's layers");
}

void check_case(const Case& c, bool branch_aside, int batch) {
  host_training::ModelSpec spec = host_training::model_from_text(c.model);
  spec.in_channels = c.channels, spec.height = spec.width = c.side;
  const uint64_t seed = 1205;
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, seed);
  const size_t per_example = size_t(c.channels) * c.side * c.side;
  course::DeviceBuffer<float> x(course::test::random_vector(size_t(batch) * per_example, seed, -1.f, 1.f));
  std::vector<int> labels;
  course::Rng rng(seed, 5);
  for (int i = 0; i < batch; ++i) labels.push_back(rng.uniform_int(spec.classes));
  course::DeviceBuffer<int> dlabels(labels);

  beyond_mnist::OtherKernels thin;
  thin.thin_first = c.thin_first;
  if (c.thin_first) REQUIRE(beyond_mnist::runs_thin_first(spec, kMaxBatch));
  mnist_gpu::GpuNetwork want(spec, init, kMaxBatch, mnist_gpu::ConvAlgorithm::automatic,
                             beyond_mnist::beyond_gpu_layers(seed, beyond_mnist::GpuLayers::lesson08).get());
  mnist_gpu::GpuNetwork got(spec, init, kMaxBatch, mnist_gpu::ConvAlgorithm::automatic,
                            beyond_mnist::beyond_gpu_layers(seed, beyond_mnist::GpuLayers::lesson09, thin).get(),
                            beyond_mnist::fused_loss_maker());
  INFO(c.model << " on " << c.channels << "x" << c.side << "x" << c.side << ", batch " << batch
               << (branch_aside ? ", weight gradients on a side stream" : "") << "; your layers: " << got.conv_summary());
  REQUIRE(got.runs_on_stream());

  // Training: forward, loss, backward.
  course::Stream stream;
  fast_training::Branch branch(stream.get());
  got.set_stream(stream.get());
  if (branch_aside) REQUIRE(beyond_mnist::use_branch(got, &branch) > 0);
  poison(want), poison(got);
  want.set_training(true), got.set_training(true);
  want.forward_backward(x.data(), dlabels.data(), batch);
  got.forward_backward(x.data(), dlabels.data(), batch);
  if (branch_aside) branch.join();
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  expect_close("row loss", download(got.loss().row_loss(), size_t(batch)),
               download(want.loss().row_loss(), size_t(batch)));
  for (size_t t = 0; t < init.size(); ++t)
    expect_gradient("gradient of " + got.parameters().name(t), download(got.parameters().grad(t), got.parameters().size(t)),
                    download(want.parameters().grad(t), want.parameters().size(t)));
  if (branch_aside) beyond_mnist::use_branch(got, nullptr);

  // Evaluation: the logits (a folded relu writes its output again, a thin first layer is separate).
  poison(want), poison(got);
  want.set_training(false), got.set_training(false);
  want.forward(x.data(), batch);
  got.forward(x.data(), batch);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const size_t logits = size_t(batch) * spec.classes;
  expect_close("logits in evaluation", download(got.logits(), logits), download(want.logits(), logits));
  got.set_stream(nullptr);
}

const Case kCases[] = {
    // implicit first conv (no dx), a relu before a conv, a tiled conv with dx, a folded relu and its
    // pool, a dense with dx, a relu before a dense.
    {"conv3x3x16,relu,conv3x3x32,relu,pool2,dense32,relu,dense10", 1, 20, false},
    // implicit convs with dx, pools after sigmoids, a conv that is a dense product with dx.
    {"conv5x5x6,sigmoid,pool2,conv5x5x16,sigmoid,pool2,conv4x4x120,sigmoid,dense84,dense10", 1, 28, false},
    // a tiled first conv (no dx), a first dense (no dx).
    {"conv3x3x8p1,relu,pool2,dense10", 8, 14, false},
    {"dense40,relu,dense10", 2, 9, false},
    // the thin first conv with its relu and pool (09.13), then a tiled conv with dx.
    {"conv3x3x32p1,relu,pool2,conv3x3x16p1,relu,pool2,dense10", 1, 22, true},
};

}  // namespace

TEST_CASE("lesson 09's kernels as layers: lesson 08's losses, gradients and logits", "[12.5]") {
  for (const Case& c : kCases) {
    check_case(c, false, kMaxBatch);
    check_case(c, false, 13);  // a batch below the largest
  }
}

TEST_CASE("lesson 09's kernels as layers: the same with the weight gradients on a side stream (09.12)", "[12.5]") {
  for (const Case& c : kCases) check_case(c, true, 11);
}

// A later layer may ask a FastConvLayer for 09.10's statistics of its outputs: your forward must pass
// them on (the same bits as 09.10's launcher called with them), and write none once they are unset.
TEST_CASE("lesson 09's kernels as layers: a tiled conv writes its statistics where asked", "[12.5]") {
  framework::ModelSpec spec = framework::model_from_text("conv3x3x16p1,dense2");
  spec.in_channels = 12, spec.height = 10, spec.width = 9, spec.classes = 2;
  const std::vector<host_training::LayerPlan> plan = framework::plan_layers(spec);
  const int batch = 5;
  host_layers::ConvShape s = host_training::conv_shape_of(plan[0], batch);
  REQUIRE(beyond_mnist::runs_tiled_conv(plan[0]));
  const std::vector<float> x = course::random_uniform(s.input_size(), 1250, -1.f, 1.f);
  const std::vector<float> W = course::random_uniform(s.weight_size(), 1251, -.3f, .3f);
  const std::vector<float> b = course::random_uniform(size_t(s.out_channels), 1252, 0.5f, 2.f);
  course::DeviceBuffer<float> d_x(x), d_W(W), d_b(b), dW(W.size()), db(b.size()), y(s.output_size()),
      tiled(fast_training::conv_tiled_weights_size(s));
  const size_t floats = 3 * size_t(s.out_channels) * size_t(fast_training::conv_tiled_statistics_entries(s));
  course::DeviceBuffer<float> want(floats), got(floats);
  want.poison(), got.poison();
  fast_training::conv_tiled_weights(s, d_W.data(), tiled.data());
  fast_training::conv2d_forward_tiled(s, d_x.data(), tiled.data(), d_b.data(), y.data(), nullptr, want.data());

  beyond_mnist::FastConvLayer layer("conv1", plan[0], batch, mnist_gpu::ParamView{d_W.data(), dW.data()},
                                    mnist_gpu::ParamView{d_b.data(), db.data()}, false);
  REQUIRE(layer.statistics_entries_per_image() * batch == fast_training::conv_tiled_statistics_entries(s));
  layer.write_statistics_to(got.data());
  layer.forward(d_x.data(), batch);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> expected = want.to_host(), written = got.to_host();
  for (float v : expected) REQUIRE(std::isfinite(v));
  REQUIRE(course::test::first_bit_difference(written, expected) == -1);

  got.poison();
  layer.write_statistics_to(nullptr);
  layer.forward(d_x.data(), batch);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : got.to_host()) REQUIRE(std::isnan(v));  // none written
}
